// SQL for db_purge: finished workunits (assimilated, input files deleted, every result
// OVER with its files handled) older than a cutoff, and their removal.
#pragma once

#include <cstdint>
#include <vector>

#include "db/database.h"
#include "db/rows.h"

namespace tharsis {

struct PurgeCandidate {
  WorkunitRow workunit;
  std::vector<ResultRow> results;
  int64_t assimilated_time = 0;
};

// Oldest first, by workunit id: workunits with file_delete_state DONE, assimilated at or
// before `cutoff`, whose results are all OVER and none still has files waiting for deletion.
std::vector<PurgeCandidate> fetch_purge_candidates(Database& db, int64_t cutoff, int limit);

// Deletes the workunits, their results (with their stderr), inputs and assimilation records (one transaction
// from the caller). Returns the number of workunits deleted.
int64_t delete_purged(Database& db, const std::vector<int64_t>& wu_ids);

}  // namespace tharsis
