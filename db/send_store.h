// SQL the scheduler uses to pick work: unsent results with what their workunit needs
// (resource bounds, deadline) and the operand graph's host preference, best first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"

namespace tharsis {

struct SendCandidateRow {
  int64_t result_id = 0;
  int64_t workunit_id = 0;
  int64_t appid = 0;
  int priority = 0;
  double rsc_fpops_est = 0, rsc_memory_bound = 0, rsc_disk_bound = 0;
  int delay_bound = 0;
  int64_t preferred_host = 0;
  int64_t preferred_until = 0;
};

// Up to `limit` UNSENT results by priority (highest first), then age, read in the order
// of the result(server_state, priority DESC, id) index: about `limit` rows are read
// however long the queue is.
std::vector<SendCandidateRow> fetch_send_candidates(Database& db, int limit);

}  // namespace tharsis
