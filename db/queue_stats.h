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
  std::string name;        // transition, validation, assimilation, file_deletion
  int64_t count = 0;
  int64_t oldest_age = 0;  // seconds since the oldest item entered (see queue_backlogs)
};

// Transition: due workunits, age from the earliest transition_time. The other queues
// have no entry time in the schema; their age is that of the oldest workunit in them
// (create_time), an upper bound.
std::vector<QueueBacklog> queue_backlogs(Database& db, int64_t now);

// (server_state, outcome) -> number of results.
std::map<std::pair<int, int>, int64_t> results_by_state(Database& db);

}  // namespace tharsis
