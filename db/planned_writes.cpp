// Implementation of db/planned_writes.h.
#include "db/planned_writes.h"

#include <string>

#include "db/result_store.h"
#include "db/stale_row.h"
#include "db/workunit_store.h"

namespace tharsis {

bool write_as_set(Database& db, const PlannedWrites& w) {
  const auto all = [](int64_t matched, size_t planned) { return matched == static_cast<int64_t>(planned); };
  if (!all(update_results_guarded(db, w.result_updates), w.result_updates.size())) return false;
  insert_result_rows(db, w.new_results);
  return all(update_workunits_guarded(db, w.workunit_updates), w.workunit_updates.size());
}

void write_row_by_row(Database& db, const PlannedWrites& w) {
  for (const auto& u : w.result_updates) {
    require_written(update_result_guarded(db, u), "result " + std::to_string(u.after.id));
  }
  for (const auto& r : w.new_results) insert_result_row(db, r);
  for (const auto& u : w.workunit_updates) {
    require_written(update_workunit_guarded(db, u.before, u.after), "workunit " + std::to_string(u.after.id));
  }
}

}  // namespace tharsis
