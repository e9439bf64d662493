// Rows for the batch-commit tests: workunits all planned at one transition time, and a
// workunit row held locked by another connection while a batch runs.
#pragma once

#include <cstdint>
#include <vector>

#include "db/database.h"
#include "db/rows.h"
#include "db/sql.h"
#include "tests/support/held_elsewhere.h"
#include "tests/support/test_database.h"

namespace tharsis::testing {

// Workunits wu1..wu<n> of app 1 at `transition_time`, as inserted (ids filled in).
std::vector<WorkunitRow> insert_planned_workunits(Database& db, int n, int64_t transition_time);

// Holds workunit `id` locked (FOR UPDATE) from another connection while `body` runs.
template <class Body>
void with_workunit_locked_elsewhere(const TestDatabase& tdb, int64_t id, Body body) {
  while_held_elsewhere(
      [&] { return tdb.open(); },
      [&](Database& d) { query_int(d, "SELECT id FROM workunit WHERE id = ? FOR UPDATE", id); }, body);
}

}  // namespace tharsis::testing
