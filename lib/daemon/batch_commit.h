// Several units of daemon work per transaction: a commit (and its round trips) is shared
// by up to `per_commit` units, while each unit keeps its own guarantees:
//  - every unit still locks and re-checks its rows and writes only guarded on the state
//    it planned on, so a re-run after a crash or a retry is a no-op for it;
//  - a unit that finds a row changed under it (StaleRow) or waits out a lock (lock wait timeout) is
//    skipped alone: the transaction is rolled back and re-run without that unit, so the
//    others still commit, and none ever commits half-written;
//  - a deadlock or a lost connection re-runs the whole batch (Database::transaction);
//  - a process killed at any instant loses the open batch whole (never commits a part of
//    a unit), and the next pass finds those units due again.
// `unit(db, id)` does one unit inside the open transaction and returns whether it wrote;
// it may be run more than once, so it must only touch the database or be idempotent.
// `lock_batch(db, ids)` (optional) runs first in each attempt, with the batch's ids, to
// lock their rows in a few statements; if it times out on a lock, the units run anyway
// (each must then lock its own rows). `finish_batch(db, ids)` (optional) runs last in
// each attempt, inside the transaction, with the ids of the units that ran (e.g. to write
// per-batch totals once). Returns the number of units written. `stop` (optional) is
// checked between batches. The ids should be distinct.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "db/database.h"
#include "db/locked_workunits.h"
#include "db/planned_writes.h"

namespace tharsis {

using UnitOfWork = std::function<bool(Database&, int64_t id)>;
using BatchLock = std::function<void(Database&, const std::vector<int64_t>& ids)>;
using BatchFinish = std::function<void(Database&, const std::vector<int64_t>& ids)>;

int commit_in_batches(Database& db, const std::vector<int64_t>& ids, int per_commit, const UnitOfWork& unit,
                      const std::function<bool()>& stop = {}, const BatchLock& lock_batch = {},
                      const BatchFinish& finish_batch = {});

// commit_in_batches over workunit ids, each batch's workunits and results locked by
// `locked` (db/locked_workunits.h), which the units read with locked.load(); `locked` is
// empty again on return, so no row of a finished transaction is ever planned on.
int commit_workunit_batches(Database& db, const std::vector<int64_t>& wu_ids, int per_commit,
                            LockedWorkunits& locked, const UnitOfWork& unit,
                            const std::function<bool()>& stop = {}, const BatchFinish& finish_batch = {});

// Plans one workunit inside its batch's open transaction: reads its rows with
// locked.load(), asks the daemon's rules, and appends what to write to `writes` (it writes
// nothing itself). Returns whether the unit has something to write. May run more than
// once for one unit, so it must only read the database (or be idempotent).
using PlanUnit = std::function<bool(Database&, int64_t id, PlannedWrites& writes)>;

// commit_workunit_batches, set-based: plan per unit, write per set. In each batch's
// transaction the workunits and results are locked in two statements, every unit is
// planned, and the batch's writes go in as a set (db/planned_writes.h: a few statements
// per batch, not per unit). When the batch read times out on a lock, a plan throws
// StaleRow or times out, or a set write finds a row not in the state it was planned on
// (the rows changed under us: correctness never rests on the locks alone), the batch is
// rolled back and run again by commit_workunit_batches, each unit planned and written row
// by row, so only a stale unit is skipped. Returns the number of units written.
int commit_workunit_sets(Database& db, const std::vector<int64_t>& wu_ids, int per_commit,
                         LockedWorkunits& locked, const PlanUnit& plan,
                         const std::function<bool()>& stop = {}, const BatchFinish& finish_batch = {});

}  // namespace tharsis
