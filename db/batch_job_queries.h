// The jobs (workunits) of remote-submission batches: listing a batch's jobs through the
// workunit(batch) index, finding jobs by name, and cancelling them set-based (BOINC's
// abort_batch / abort_jobs: error_mask |= CANCELLED and due now, so the transitioner
// ends them and the scheduler aborts their results in flight).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "db/database.h"

namespace tharsis {

struct BatchJob {
  int64_t id = 0;
  std::string name;
  int64_t batch = 0;
  int64_t canonical_resultid = 0;
  int error_mask = 0;
};

// The batch's jobs, by id (an index range of workunit(batch)).
std::vector<BatchJob> fetch_batch_jobs(Database& db, int64_t batch_id);
// Of the batch's jobs, those with a result in progress (sent, not reported).
std::unordered_set<int64_t> fetch_batch_jobs_in_progress(Database& db, int64_t batch_id);
// The jobs with these names (those that exist).
std::vector<BatchJob> fetch_jobs_by_name(Database& db, const std::vector<std::string>& names);

// Cancels every job of the batch not assimilated yet; returns how many changed.
int64_t cancel_batch_jobs(Database& db, int64_t batch_id, int64_t now);
// Cancels every job of these batches not assimilated yet (one statement); returns how many changed.
int64_t cancel_jobs_of_batches(Database& db, const std::vector<int64_t>& batch_ids, int64_t now);
// The names of these batches' jobs (one statement over the workunit(batch) index).
std::vector<std::string> fetch_job_names_of_batches(Database& db, const std::vector<int64_t>& batch_ids);
// Cancels the jobs with these ids not assimilated yet; returns how many changed.
int64_t cancel_jobs(Database& db, const std::vector<int64_t>& ids, int64_t now);

}  // namespace tharsis
