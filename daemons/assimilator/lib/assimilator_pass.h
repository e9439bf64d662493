// The assimilator's shell: for each workunit with assimilate_state READY in its shard,
// inside a transaction shared by up to --units_per_commit workunits (batch_commit.h; a
// workunit whose row changed meanwhile is skipped alone, its handler's files kept, as
// they are idempotent), lock it and its results (locked_workunits.h), runs the handler — by default the results store
// (results_store.h: canonical outputs copied with a MANIFEST, or an ERROR record) —
// records the assimilation and sets DONE with transition_time = now (so the transitioner
// schedules file deletion). The handler's effect is idempotent and the DONE commit is the
// single point of truth: killed anywhere, a restart repeats nothing visible and the
// assimilation row exists exactly once.
#pragma once

#include <functional>
#include <string>

#include "daemons/assimilator/lib/batch_progress.h"
#include "db/rows.h"
#include "db/locked_workunits.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

// Handles one workunit (canonical result given, or null on error) at time `now`, inside
// the assimilator's transaction (its DB writes commit with DONE or not at all). Must be
// idempotent; an error leaves the workunit READY for the next pass.
using AssimilationHandler =
    std::function<Status(Database&, const WorkunitRow&, const ResultRow* canonical, int64_t now)>;

// The default handler: <project>/results/<wu name>/ with MANIFEST or ERROR.
AssimilationHandler results_store_handler(const ProjectConfig& config);

class AssimilatorPass final : public DaemonWork {
 public:
  AssimilatorPass(const ProjectConfig& config, AssimilationHandler handler)
      : config_(config), handler_(std::move(handler)) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
 private:
  bool assimilate_in_transaction(Database& d, int64_t wu_id, int64_t now);
  const ProjectConfig& config_;
  AssimilationHandler handler_;
  LockedWorkunits locked_;  // the open batch's rows (the canonical result among them)
  BatchProgress batches_;   // remote-submission batches' counts, written at each commit
};

}  // namespace tharsis
