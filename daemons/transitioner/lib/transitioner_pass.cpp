// Implementation of daemons/transitioner/lib/transitioner_pass.h.
#include "daemons/transitioner/lib/transitioner_pass.h"

#include "daemons/transitioner/transitioner_rules.h"
#include "db/result_store.h"
#include "db/stale_row.h"
#include "db/workunit_store.h"
#include "lib/file_refs.h"
#include "lib/log.h"
#include "lib/text_file.h"

namespace tharsis {

const std::string& TransitionerPass::output_template(const std::string& file) {
  auto it = templates_.find(file);
  if (it != templates_.end()) return it->second;
  std::string path = file.empty() || file[0] == '/' ? file : config_.project_dir + "/" + file;
  auto text = file.empty() ? Result<std::string>(std::string()) : read_text_file(path);
  if (!text.ok()) log_error("output template: ", text.error());
  return templates_.emplace(file, text.ok() ? *text : std::string()).first->second;
}

bool TransitionerPass::transition_one(Database& db, int64_t wu_id, int64_t now) {
  try {
    return db.transaction([&](Database& d) {
      auto wu = fetch_workunit(d, wu_id, /*for_update=*/true);
      if (!wu || wu->transition_time > now) return false;  // someone else got there first
      auto results = fetch_results_of_workunit(d, wu_id, /*for_update=*/true);
      TransitionPlan plan = plan_transition(*wu, results, now);
      for (const auto& update : plan.result_updates) {
        require_written(update_result_guarded(d, update), "result " + std::to_string(update.after.id));
      }
      const std::string& templ = output_template(wu->result_template_file);
      for (ResultRow result : plan.new_results) {
        result.xml_doc_in = expand_output_template(templ, result.name, config_.upload_url);
        insert_result(d, result);
      }
      require_written(update_workunit_guarded(d, *wu, plan.workunit), "workunit " + std::to_string(wu_id));
      for (const auto& note : plan.notes) log_debug("workunit ", wu_id, ": ", note);
      return true;
    });
  } catch (const StaleRow& e) {
    log_warning(e.what());
    return false;
  }
}

int TransitionerPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  int done = 0;
  for (const auto& wu : fetch_due_workunits(db, now, context.shard, context.batch)) {
    done += transition_one(db, wu.id, now) ? 1 : 0;
  }
  return done;
}

}  // namespace tharsis
