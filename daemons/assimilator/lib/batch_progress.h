// Keeping remote-submission batches current as their workunits are assimilated: the
// assimilator notes each workunit it settles (note), and before its transaction commits
// adds the counts to each batch touched (flush: one UPDATE per distinct batch, not per
// workunit; db/batch_store.h add_batch_progress). As the counts commit with the
// assimilation itself, each workunit is counted exactly once, and a batch whose jobs are
// all settled becomes COMPLETED in that same commit.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "db/database.h"
#include "db/rows.h"

namespace tharsis {

struct BatchCounts {
  int done = 0;    // settled with a canonical result
  int errors = 0;  // settled in error
  double credit = 0;
};

// Pure: the counts per batch of the settled workunits (batch 0, no batch, is skipped).
std::map<int64_t, BatchCounts> batch_counts(const std::vector<WorkunitRow>& settled);

class BatchProgress {
 public:
  // Records that `wu` was settled in the open transaction (again, if it ran before).
  void note(const WorkunitRow& wu);
  // Forgets a workunit (its unit is running again, or was skipped).
  void forget(int64_t wu_id);
  // Writes the counts of the workunits in `committing` that were noted, inside the open
  // transaction, and forgets everything.
  void flush(Database& db, const std::vector<int64_t>& committing, int64_t now);

 private:
  std::map<int64_t, WorkunitRow> settled_;  // by workunit id
};

}  // namespace tharsis
