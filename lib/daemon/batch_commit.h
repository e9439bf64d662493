// Several units of daemon work per transaction: a commit (and its round trips) is shared
// by up to `per_commit` units, while each unit keeps its own guarantees:
//  - every unit still locks and re-checks its rows and writes only guarded on the state
//    it planned on, so a re-run after a crash or a retry is a no-op for it;
//  - a unit that finds a row changed under it (StaleRow) or waits out a lock (1205) is
//    skipped alone: the transaction is rolled back and re-run without that unit, so the
//    others still commit, and none ever commits half-written;
//  - a deadlock or a lost connection re-runs the whole batch (Database::transaction);
//  - a process killed at any instant loses the open batch whole (never commits a part of
//    a unit), and the next pass finds those units due again.
// `unit(db, i)` does unit i inside the open transaction and returns whether it wrote;
// it may be run more than once, so it must only touch the database or be idempotent.
// Returns the number of units written. `stop` (optional) is checked between batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "db/database.h"

namespace tharsis {

int commit_in_batches(Database& db, size_t count, int per_commit, const std::function<bool(Database&, size_t)>& unit,
                      const std::function<bool()>& stop = {});

// The same over row ids: `unit(db, id)` for each id.
int commit_in_batches(Database& db, const std::vector<int64_t>& ids, int per_commit,
                      const std::function<bool(Database&, int64_t)>& unit, const std::function<bool()>& stop = {});

}  // namespace tharsis
