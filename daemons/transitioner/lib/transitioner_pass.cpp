// Implementation of daemons/transitioner/lib/transitioner_pass.h.
#include "daemons/transitioner/lib/transitioner_pass.h"

#include "daemons/transitioner/transitioner_rules.h"
#include "db/workunit_store.h"
#include "lib/daemon/batch_commit.h"
#include "lib/log.h"
#include "lib/text_file.h"
#include "lib/work/file_refs.h"

namespace tharsis {

const std::string& TransitionerPass::output_template(const std::string& file) {
  auto it = templates_.find(file);
  if (it != templates_.end()) return it->second;
  std::string path = file.empty() || file[0] == '/' ? file : config_.project_dir + "/" + file;
  auto text = file.empty() ? Result<std::string>(std::string()) : read_text_file(path);
  if (!text.ok()) log_error("output template: ", text.error());
  return templates_.emplace(file, text.ok() ? *text : std::string()).first->second;
}

bool TransitionerPass::plan_in_transaction(Database& d, int64_t wu_id, int64_t now, PlannedWrites& writes) {
  auto [wu, results] = locked_.load(d, wu_id);
  if (!wu || wu->transition_time > now) return false;  // someone else got there first
  TransitionPlan plan = plan_transition(*wu, results, now);
  writes.result_updates.insert(writes.result_updates.end(), plan.result_updates.begin(),
                               plan.result_updates.end());
  const std::string& templ = output_template(wu->result_template_file);
  for (ResultRow& result : plan.new_results) {
    result.xml_doc_in = expand_output_template(templ, result.name, config_.upload_url);
    writes.new_results.push_back(std::move(result));
  }
  writes.workunit_updates.push_back(WorkunitUpdate{*wu, std::move(plan.workunit)});
  for (const auto& note : plan.notes) log_debug("workunit ", wu_id, ": ", note);
  return true;
}

int TransitionerPass::transition_batch(Database& db, const std::vector<int64_t>& wu_ids, int64_t now,
                                       int per_commit) {
  return commit_workunit_sets(db, wu_ids, per_commit, locked_,
                              [&](Database& d, int64_t id, PlannedWrites& writes) {
                                return plan_in_transaction(d, id, now, writes);
                              });
}

int TransitionerPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  return transition_batch(db, fetch_due_workunit_ids(db, now, context.shard, context.batch), now,
                          context.options.units_per_commit);
}

}  // namespace tharsis
