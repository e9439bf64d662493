// Implementation of db/planned_writes.h.
#include "db/planned_writes.h"

#include <string>

#include "db/credit_store.h"
#include "db/result_store.h"
#include "db/stale_row.h"
#include "db/workunit_store.h"

namespace tharsis {

bool write_as_set(Database& db, const PlannedWrites& w) {
  const auto all = [](int64_t matched, size_t planned) { return matched == static_cast<int64_t>(planned); };
  if (!all(update_results_guarded(db, w.result_updates), w.result_updates.size())) return false;
  insert_result_rows(db, w.new_results);
  if (!all(record_assimilations(db, w.assimilations), w.assimilations.size())) return false;
  if (!all(update_workunits_guarded(db, w.workunit_updates), w.workunit_updates.size())) return false;
  record_pending_credit(db, w.credits);
  return true;
}

void write_row_by_row(Database& db, const PlannedWrites& w) {
  for (const auto& u : w.result_updates) {
    require_written(update_result_guarded(db, u), "result " + std::to_string(u.after.id));
  }
  for (const auto& r : w.new_results) insert_result_row(db, r);
  for (const auto& a : w.assimilations) {
    require_written(record_assimilation(db, a.wu_id, a.time, a.canonical_resultid, a.error_mask),
                    "assimilation record of workunit " + std::to_string(a.wu_id));
  }
  for (const auto& u : w.workunit_updates) {
    require_written(update_workunit_guarded(db, u.before, u.after), "workunit " + std::to_string(u.after.id));
  }
  record_pending_credit(db, w.credits);  // not guarded: one statement
}

}  // namespace tharsis
