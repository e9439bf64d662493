// Read-only counts for tools/status, the status pages and the census daemon: each back-end
// queue's backlog and the age of its oldest item, results by server_state and outcome.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "db/database.h"

namespace tharsis {

// Counting a queue reads one index entry per item, so a page view counts at most this
// many per queue (about 2 ms at 10,000 on this machine; 100,000 took 35 ms) and says
// "at least" beyond it; the census daemon counts exactly (db/census_store.h).
inline constexpr int64_t kQueueCountCap = 10000;

struct QueueBacklog {
  std::string name;  // transition, validation, assimilation, file_deletion
  int64_t count = 0;
  int64_t oldest_age = 0;  // seconds since the oldest item entered (see queue_backlogs)
  bool capped = false;     // the count stopped at the cap: the backlog is at least `count`
};

// The four queues, each counted up to `cap` items (0: no cap, an exact count that reads
// every queued item's index entry). Costs O(min(backlog, cap)) index entries per queue
// and one row lookup for the age, never a table scan.
// Age: transition from the earliest due transition_time. The other queues have no entry
// time in the schema; their age is that of the queue's first-created workunit or result
// (lowest id, an index lookup: ids grow with create_time), an upper bound.
std::vector<QueueBacklog> queue_backlogs(Database& db, int64_t now, int64_t cap = kQueueCountCap);

// (server_state, outcome) -> number of results. Reads one index entry per result: at 1M
// results about 0.3 s, so the status pages read the census snapshot instead.
std::map<std::pair<int, int>, int64_t> results_by_state(Database& db);

// How far the project's workunits are (progress lines of a demo or a simulation run).
struct WorkunitProgress {
  int64_t total = 0;
  int64_t with_canonical = 0;        // canonical_resultid set and no error
  int64_t errored = 0;               // error_mask != 0
  int64_t assimilated = 0;           // assimilate_state DONE
  int64_t files_deleted = 0;         // file_delete_state DONE
  int64_t results_not_over = 0;      // results UNSENT or IN_PROGRESS
  int64_t result_files_pending = 0;  // results whose output files wait for the file deleter
  // Every workunit finished, assimilated, its files deleted, no result pending and no
  // result's outputs left to delete: what `check --settled` demands. (The file deleter
  // clears a pass's workunits before its results, so workunits alone settle too early.)
  bool settled() const {
    return total > 0 && files_deleted == total && results_not_over == 0 && result_files_pending == 0;
  }
};
WorkunitProgress workunit_progress(Database& db);

}  // namespace tharsis
