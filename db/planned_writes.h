// The writes a daemon's rules planned for a batch of units, gathered so that the batch is
// written as a set — new results and assimilation records in multi-row INSERTs, the
// result updates in one statement and the workunit updates in another, every update still
// guarded per row on the state it was planned on, credit recorded as pending per host and user —
// or, when a set write finds a row changed under it, row by row, each guarded, to find
// which unit is stale (lib/daemon/batch_commit.h).
#pragma once

#include <vector>

#include "db/assimilation_store.h"
#include "db/database.h"
#include "db/row_changes.h"
#include "db/rows.h"

namespace tharsis {

struct PlannedWrites {
  std::vector<ResultUpdate> result_updates;       // distinct rows
  std::vector<ResultRow> new_results;             // id 0; ids are not read back
  std::vector<AssimilationRecord> assimilations;  // distinct workunits; each must be new
  std::vector<WorkunitUpdate> workunit_updates;   // distinct rows
  std::vector<CreditChange> credits;  // recorded as pending credit (db/credit_store.h), not guarded
};

// In order: result updates, new results, assimilation records, workunit updates, credit;
// a few statements whatever the batch's size. Returns false as soon as a set write matched
// fewer rows than it holds (some row changed since it was read, or a workunit already has
// its assimilation record): the transaction then holds part of the writes, and the caller
// must roll it back.
bool write_as_set(Database& db, const PlannedWrites& writes);

// The same writes, one statement per row; throws StaleRow naming the first row found changed.
void write_row_by_row(Database& db, const PlannedWrites& writes);

}  // namespace tharsis
