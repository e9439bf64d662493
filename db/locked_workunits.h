// Workunits with their results, locked FOR UPDATE for a daemon's batch in two statements
// (instead of two per workunit). lock() runs inside the batch's transaction, at the start
// of each attempt; load() then hands out a workunit's rows from that read, or — for a
// workunit lock() did not cover (a single-unit call, or lock() failed) — reads and locks
// them itself, so the rows a rule plans on are always ones locked by the open transaction.
// Locks are taken in the daemons' order: workunits (by ascending id) before results, then
// the rows of the daemon's companions (BatchRows).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "db/database.h"
#include "db/result_store.h"
#include "db/rows.h"

namespace tharsis {

// A daemon's own rows that its batch needs beside the workunits and results (the
// assimilator's live cluster jobs), read for the whole batch with them: see
// LockedWorkunits::also_lock.
class BatchRows {
 public:
  virtual ~BatchRows() = default;
  // Reads and locks the rows of these workunits (ascending ids), after their workunits
  // and results are locked; keeps nothing when it throws.
  virtual void lock(Database& db, const std::vector<int64_t>& wu_ids) = 0;
  // Forgets every row read (the transaction that read them ended, or the batch read failed).
  virtual void clear() = 0;
};

struct LockedWorkunit {
  std::optional<WorkunitRow> workunit;  // nullopt: no such workunit (any more)
  std::vector<ResultRow> results;       // by id
};

class LockedWorkunits {
 public:
  // `text`: whether the results come with their file lists (ResultText in
  // db/result_store.h); a daemon whose rules never read them leaves them.
  explicit LockedWorkunits(ResultText text = ResultText::FileLists) : text_(text) {}
  // Forgets earlier rows, then locks these workunits and their results, then has every
  // also_lock() companion read its rows. On a DbError nothing is kept (load() reads per
  // workunit, and so must each companion's reader) and the error propagates.
  void lock(Database& db, const std::vector<int64_t>& wu_ids);
  // Forgets every row, the companions' too (after the transaction ends: its locks are gone).
  void clear();
  // `rows` is read with every lock() and forgotten with it, so that its rows are only
  // ever those of the open attempt's transaction.
  void also_lock(std::shared_ptr<BatchRows> rows) { companions_.push_back(std::move(rows)); }
  // The rows of one workunit; each is handed out once per lock().
  LockedWorkunit load(Database& db, int64_t wu_id);

 private:
  ResultText text_;
  std::map<int64_t, LockedWorkunit> rows_;
  std::vector<std::shared_ptr<BatchRows>> companions_;
};

}  // namespace tharsis
