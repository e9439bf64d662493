// Read-only counts for tools/status and the status pages: each back-end queue's backlog
// and the age of its oldest item, results by server_state and outcome.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "db/database.h"

namespace tharsis {

struct QueueBacklog {
  std::string name;  // transition, validation, assimilation, file_deletion
  int64_t count = 0;
  int64_t oldest_age = 0;  // seconds since the oldest item entered (see queue_backlogs)
};

// Transition: due workunits, age from the earliest transition_time. The other queues
// have no entry time in the schema; their age is that of the oldest workunit in them
// (create_time), an upper bound.
std::vector<QueueBacklog> queue_backlogs(Database& db, int64_t now);

// (server_state, outcome) -> number of results.
std::map<std::pair<int, int>, int64_t> results_by_state(Database& db);

// How far the project's workunits are (progress lines of a demo or a simulation run).
struct WorkunitProgress {
  int64_t total = 0;
  int64_t with_canonical = 0;    // canonical_resultid set and no error
  int64_t errored = 0;           // error_mask != 0
  int64_t assimilated = 0;       // assimilate_state DONE
  int64_t files_deleted = 0;     // file_delete_state DONE
  int64_t results_not_over = 0;  // results UNSENT or IN_PROGRESS
  // Every workunit finished, assimilated, its files deleted, and no result pending.
  bool settled() const { return total > 0 && files_deleted == total && results_not_over == 0; }
};
WorkunitProgress workunit_progress(Database& db);

}  // namespace tharsis
