// The assimilator's shell: for each workunit with assimilate_state READY in its shard,
// inside a transaction shared by up to --units_per_commit workunits (batch_commit.h,
// commit_workunit_sets: the batch's writes made as a set; a workunit whose row changed
// meanwhile is skipped alone, its handler's files kept, as they are idempotent), lock it
// and its results (locked_workunits.h), check the canonical
// result's output files against the sizes and md5s it reported (lib/work/output_check.h), and
// apply plan_assimilation (assimilator_rules.h):
//  - they match: run the handler, given the outputs still open on the bytes checked — by
//    default the results store (results_store.h: those very files linked in with a
//    MANIFEST, or an ERROR record) — record the assimilation and set DONE with
//    transition_time = now (so the transitioner schedules file deletion);
//  - they differ (or are gone): nothing is stored; the canonical result is withdrawn
//    (VALIDATE_ERROR) and the workunit goes back to validation, the credit granted for the
//    withdrawn consensus taken back — the guarded writes of the plan, in this transaction;
//  - they cannot be read now (I/O error): left READY for a later pass.
// The handler's effect is idempotent and the DONE commit is the single point of truth:
// killed anywhere, a restart repeats nothing visible and the assimilation row exists
// exactly once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemons/assimilator/assimilator_rules.h"
#include "daemons/assimilator/lib/batch_progress.h"
#include "daemons/assimilator/lib/results_store.h"
#include "db/locked_workunits.h"
#include "db/planned_writes.h"
#include "db/rows.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

// What the assimilator does with each workunit it takes. `handle` handles one workunit
// (canonical result given with its output files as checked, open on the bytes checked; or
// null and no files on error) at time `now`, inside the assimilator's
// transaction (its DB writes commit with DONE or not at all); it must be idempotent, and
// an error leaves the workunit READY for the next pass. `batch_rows` (optional) are read
// for each batch with its workunits (LockedWorkunits::also_lock), so that `handle` need not
// read them one workunit at a time. One pass at a time per handler.
struct AssimilationHandler {
  std::function<Status(Database&, const WorkunitRow&, const ResultRow* canonical,
                       const std::vector<CheckedOutput>& outputs, int64_t now)>
      handle;
  std::vector<std::shared_ptr<BatchRows>> batch_rows;
};

// The default handler: <project>/results/<wu name>/ with MANIFEST or ERROR.
AssimilationHandler results_store_handler(const ProjectConfig& config);

// The canonical result's output files in upload/ against its report: one open and fstat,
// and one md5 when the size matches, per file. On a match, `checked` holds each file open
// on the bytes checked; otherwise `why` says what differs or failed.
CanonicalOutputs check_canonical_outputs(const ProjectConfig& config, const ResultRow& canonical,
                                         std::vector<CheckedOutput>& checked, std::string& why);

class AssimilatorPass final : public DaemonWork {
 public:
  AssimilatorPass(const ProjectConfig& config, AssimilationHandler handler)
      : config_(config), handler_(std::move(handler)) {
    for (const auto& rows : handler_.batch_rows) locked_.also_lock(rows);
  }
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;

 private:
  // Plans (and hands to the handler) one workunit of the open batch; false when nothing
  // is to be written.
  bool plan_in_transaction(Database& d, int64_t wu_id, int64_t now, PlannedWrites& writes);
  const ProjectConfig& config_;
  AssimilationHandler handler_;
  LockedWorkunits locked_;  // the open batch's rows (the canonical result among them)
  BatchProgress batches_;   // remote-submission batches' counts, written at each commit
  int64_t cursor_ = 0;      // where the last read of the queue ended (lib/daemon/cursor_read.h)
};

}  // namespace tharsis
