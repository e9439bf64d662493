// Implementation of daemons/assimilator/lib/assimilator_pass.h.
#include "daemons/assimilator/lib/assimilator_pass.h"

#include <cerrno>
#include <utility>

#include "daemons/assimilator/assimilator_rules.h"
#include "daemons/assimilator/lib/results_store.h"
#include "db/app_store.h"
#include "db/assimilation_store.h"
#include "db/workunit_store.h"
#include "lib/daemon/batch_commit.h"
#include "lib/daemon/cursor_read.h"
#include "lib/log.h"
#include "lib/work/output_check.h"
#include "lib/work/output_files.h"

namespace tharsis {
namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The canonical result's output files, each with what the result reported for it.
Result<std::vector<CanonicalOutput>> canonical_outputs_of(const ProjectConfig& config,
                                                          const ResultRow& canonical) {
  auto paths = output_file_paths(config, canonical);
  if (!paths.ok()) return make_error(paths.error());
  auto reported = reported_outputs_in(canonical.xml_doc_out);
  std::vector<CanonicalOutput> outputs;
  for (const auto& path : *paths) {
    CanonicalOutput output{path, ReportedOutput{base_name(path), -1, ""}};
    if (reported.ok()) {
      if (const ReportedOutput* r = find_reported(*reported, output.reported.name)) output.reported = *r;
    }
    outputs.push_back(std::move(output));
  }
  return outputs;
}

}  // namespace

CanonicalOutputs check_canonical_outputs(const ProjectConfig& config, const ResultRow& canonical,
                                         std::vector<CheckedOutput>& checked, std::string& why) {
  checked.clear();
  auto refuse = [&](std::string message, CanonicalOutputs verdict) {
    why = std::move(message);
    checked.clear();  // nothing kept open unless all match
    return verdict;
  };
  auto outputs = canonical_outputs_of(config, canonical);
  if (!outputs.ok()) return refuse(outputs.error(), CanonicalOutputs::Mismatch);
  for (const auto& output : *outputs) {
    OutputVerdict verdict = check_output(output, checked.emplace_back());
    if (verdict.error_number != 0) {
      // A canonical output gone from upload/ cannot be assimilated, ever (as the validator
      // treats a missing output); other errors (EIO, EACCES) may heal.
      const int e = verdict.error_number;
      return refuse(verdict.message, e == ENOENT || e == ENOTDIR || e == EISDIR
                                         ? CanonicalOutputs::Mismatch
                                         : CanonicalOutputs::Unreadable);
    }
    if (verdict.match != OutputMatch::Match) return refuse(verdict.message, CanonicalOutputs::Mismatch);
  }
  return CanonicalOutputs::Match;
}

AssimilationHandler results_store_handler(const ProjectConfig& config) {
  // One store per handler: the factory makes one handler per worker thread.
  auto store = std::make_shared<ResultsStore>(config.project_dir + "/results");
  AssimilationHandler handler;
  handler.handle = [store](Database&, const WorkunitRow& wu, const ResultRow* canonical,
                           const std::vector<CheckedOutput>& outputs, int64_t) -> Status {
    if (!canonical) return store->store_error(wu.name, wu.error_mask, "workunit ended in error");
    auto stored = store->store_outputs(wu.name, outputs);
    if (!stored.ok()) return make_error(stored.error());
    return Status::success();
  };
  return handler;
}

bool AssimilatorPass::plan_in_transaction(Database& d, int64_t wu_id, int64_t now, PlannedWrites& writes) {
  batches_.forget(wu_id);  // this unit may be running again after a rollback
  auto [wu, results] = locked_.load(d, wu_id);
  if (!wu || wu->assimilate_state != AssimilateState::Ready) return false;
  const ResultRow* canonical = canonical_result(*wu, results);
  std::string why;
  std::vector<CheckedOutput> checked;  // open until the handler has kept them
  const CanonicalOutputs outputs =
      canonical ? check_canonical_outputs(config_, *canonical, checked, why) : CanonicalOutputs::Match;
  AssimilationPlan plan = plan_assimilation(*wu, results, outputs, now);
  switch (plan.action) {
    case AssimilationAction::None:
      return false;
    case AssimilationAction::RetryLater:
      log_error("workunit ", wu_id, " (", wu->name, "): ", why, "; left READY for the next pass");
      return false;
    case AssimilationAction::WithdrawCanonical:
      log_warning("workunit ", wu_id, " (", wu->name, "): ", why);
      for (const auto& note : plan.notes) log_warning(note);
      writes.result_updates.insert(writes.result_updates.end(), plan.result_updates.begin(),
                                   plan.result_updates.end());
      writes.credits.insert(writes.credits.end(), plan.credit_changes.begin(), plan.credit_changes.end());
      writes.workunit_updates.push_back(WorkunitUpdate{*wu, std::move(plan.workunit)});
      return true;
    case AssimilationAction::Assimilate:
      break;
  }
  Status handled = handler_.handle(d, *wu, canonical, checked, now);
  if (!handled.ok()) {
    log_error("workunit ", wu_id, " (", wu->name, "): handler failed: ", handled.error(),
              "; left READY for the next pass");
    return false;
  }
  writes.assimilations.push_back(AssimilationRecord{wu_id, now, wu->canonical_resultid, wu->error_mask});
  writes.workunit_updates.push_back(WorkunitUpdate{*wu, std::move(plan.workunit)});
  batches_.note(*wu);  // counted only if it commits (flush is given the units that ran)
  return true;
}

int AssimilatorPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  std::vector<int64_t> ids =
      read_from_cursor(cursor_, context.batch, [&](int64_t after, int64_t upto, int n) {
        return fetch_assimilate_ready_ids(db, context.shard, n, after, upto);
      });
  // Units read and copy files: stop between batches.
  return commit_workunit_sets(
      db, ids, context.options.units_per_commit, locked_,
      [&](Database& d, int64_t id, PlannedWrites& writes) { return plan_in_transaction(d, id, now, writes); },
      [&] { return context.stop_requested(); },
      [&](Database& d, const std::vector<int64_t>& batch) { batches_.flush(d, batch, now); });
}

}  // namespace tharsis
