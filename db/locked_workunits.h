// Workunits with their results, locked FOR UPDATE for a daemon's batch in two statements
// (instead of two per workunit). lock() runs inside the batch's transaction, at the start
// of each attempt; load() then hands out a workunit's rows from that read, or — for a
// workunit lock() did not cover (a single-unit call, or lock() failed) — reads and locks
// them itself, so the rows a rule plans on are always ones locked by the open transaction.
// Locks are taken in the daemons' order: workunits (by ascending id) before results.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "db/database.h"
#include "db/rows.h"

namespace tharsis {

struct LockedWorkunit {
  std::optional<WorkunitRow> workunit;  // nullopt: no such workunit (any more)
  std::vector<ResultRow> results;       // by id
};

class LockedWorkunits {
 public:
  // Forgets earlier rows, then locks these workunits and their results. On a DbError
  // nothing is kept (load() reads per workunit) and the error propagates.
  void lock(Database& db, const std::vector<int64_t>& wu_ids);
  // Forgets every row (after the transaction ends: its locks are gone).
  void clear() { rows_.clear(); }
  // The rows of one workunit; each is handed out once per lock().
  LockedWorkunit load(Database& db, int64_t wu_id);

 private:
  std::map<int64_t, LockedWorkunit> rows_;
};

}  // namespace tharsis
