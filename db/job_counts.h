// The back end's job counts as BOINC's server_status.php?counts=1 gives them to remote
// submission systems (uncached, exact): results unsent and in progress, results and
// workunits waiting for file deletion, workunits waiting for validation and assimilation.
// Each is one COUNT over an index range, O(that backlog), never a table scan.
#pragma once

#include <cstdint>

#include "db/database.h"

namespace tharsis {

struct JobCounts {
  int64_t results_ready_to_send = 0;
  int64_t results_in_progress = 0;
  int64_t results_need_file_delete = 0;
  int64_t wus_need_validate = 0;
  int64_t wus_need_assimilate = 0;
  int64_t wus_need_file_delete = 0;
};

JobCounts count_jobs(Database& db);

}  // namespace tharsis
