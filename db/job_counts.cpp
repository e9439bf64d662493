// Implementation of db/job_counts.h.
#include "db/job_counts.h"

#include "db/sql.h"
#include "db/states.h"

namespace tharsis {

JobCounts count_jobs(Database& db) {
  JobCounts c;
  c.results_ready_to_send =
      query_int(db, "SELECT COUNT(*) FROM result WHERE server_state = ?", ServerState::Unsent);
  c.results_in_progress =
      query_int(db, "SELECT COUNT(*) FROM result WHERE server_state = ?", ServerState::InProgress);
  c.results_need_file_delete =
      query_int(db, "SELECT COUNT(*) FROM result WHERE file_delete_state = ?", FileDeleteState::Ready);
  c.wus_need_validate = query_int(db, "SELECT COUNT(*) FROM workunit WHERE need_validate = 1");
  c.wus_need_assimilate =
      query_int(db, "SELECT COUNT(*) FROM workunit WHERE assimilate_state = ?", AssimilateState::Ready);
  c.wus_need_file_delete =
      query_int(db, "SELECT COUNT(*) FROM workunit WHERE file_delete_state = ?", FileDeleteState::Ready);
  return c;
}

}  // namespace tharsis
