// Implementation of daemons/assimilator/lib/assimilator_pass.h.
#include "daemons/assimilator/lib/assimilator_pass.h"

#include "daemons/assimilator/lib/results_store.h"
#include "db/assimilation_store.h"
#include "db/result_store.h"
#include "db/stale_row.h"
#include "db/workunit_store.h"
#include "lib/daemon/batch_commit.h"
#include "lib/log.h"
#include "lib/output_files.h"

namespace tharsis {

AssimilationHandler results_store_handler(const ProjectConfig& config) {
  std::string store = config.project_dir + "/results";
  return [&config, store](Database&, const WorkunitRow& wu, const ResultRow* canonical, int64_t) -> Status {
    if (!canonical) return store_workunit_error(store, wu.name, wu.error_mask, "workunit ended in error");
    auto paths = output_file_paths(config, *canonical);
    if (!paths.ok()) return make_error(paths.error());
    auto stored = store_canonical_outputs(store, wu.name, *paths);
    if (!stored.ok()) return make_error(stored.error());
    return Status::success();
  };
}

bool AssimilatorPass::assimilate_in_transaction(Database& d, int64_t wu_id, int64_t now) {
  batches_.forget(wu_id);  // this unit may be running again after a rollback
  auto [wu, results] = locked_.load(d, wu_id);
  if (!wu || wu->assimilate_state != AssimilateState::Ready) return false;
  const ResultRow* canonical = nullptr;
  for (const auto& result : results) {
    if (wu->canonical_resultid != 0 && result.id == wu->canonical_resultid) canonical = &result;
  }
  Status handled = handler_(d, *wu, canonical, now);
  if (!handled.ok()) {
    log_error("workunit ", wu_id, " (", wu->name, "): handler failed: ", handled.error(),
              "; left READY for the next pass");
    return false;
  }
  require_written(record_assimilation(d, wu_id, now, wu->canonical_resultid, wu->error_mask),
                  "assimilation record of workunit " + std::to_string(wu_id));
  WorkunitRow done = *wu;
  done.assimilate_state = AssimilateState::Done;
  done.transition_time = now;
  require_written(update_workunit_guarded(d, *wu, done), "workunit " + std::to_string(wu_id));
  batches_.note(*wu);
  return true;
}

int AssimilatorPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  std::vector<int64_t> ids;
  for (const auto& wu : fetch_assimilate_ready(db, context.shard, context.batch)) ids.push_back(wu.id);
  // Units read and copy files: stop between batches.
  return commit_workunit_batches(
      db, ids, context.options.units_per_commit, locked_,
      [&](Database& d, int64_t id) { return assimilate_in_transaction(d, id, now); },
      [&] { return context.stop_requested(); },
      [&](Database& d, const std::vector<int64_t>& batch) { batches_.flush(d, batch, now); });
}

}  // namespace tharsis
