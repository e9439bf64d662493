// SQL for the batch table (remote job submission, docs/remote_submission.md), behind
// typed functions over BatchRow. State changes are guarded on the state they leave, so a
// repeated or concurrent call is a no-op; the assimilator's progress update
// (add_batch_progress) runs in its own transaction, once per batch per commit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"

namespace tharsis {

// BOINC's batch states, numbered as BOINC numbers them (html/inc/common_defs.inc).
enum class BatchState : int { Init = 0, InProgress = 1, Completed = 2, Aborted = 3, Retired = 4 };

struct BatchRow {
  int64_t id = 0;
  int64_t user_id = 0;
  int64_t create_time = 0;
  double est_completion_time = 0;
  int njobs = 0;
  int njobs_done = 0;   // assimilated with a canonical result
  int nerror_jobs = 0;  // assimilated in error
  double fraction_done = 0;
  BatchState state = BatchState::Init;
  int64_t completion_time = 0;
  double credit_estimate = 0;
  double credit_canonical = 0;
  std::string name;
  int64_t app_id = 0;
  int project_state = 0;
  std::string description;
  double expire_time = 0;
};

int64_t insert_batch(Database& db, const BatchRow& batch);  // returns the new id
std::optional<BatchRow> fetch_batch(Database& db, int64_t id, bool for_update = false);
std::optional<BatchRow> fetch_batch_by_name(Database& db, const std::string& name, bool for_update = false);
// The account's batches, newest first; retired ones only when asked.
std::vector<BatchRow> fetch_user_batches(Database& db, int64_t user_id, bool include_retired);
// The batches with these ids (those that exist), by id.
std::vector<BatchRow> fetch_batches(Database& db, const std::vector<int64_t>& ids);

// Jobs of the account's batches in progress that are not finished yet.
int64_t count_user_jobs_in_progress(Database& db, int64_t user_id);

// A batch in INIT gets `njobs` jobs and goes IN_PROGRESS; false when it was not in INIT.
bool start_batch(Database& db, int64_t batch_id, int njobs, double credit_estimate);
// INIT, IN_PROGRESS or COMPLETED -> ABORTED at `now`; false when it was not.
bool mark_batch_aborted(Database& db, int64_t batch_id, int64_t now);
// Any state but RETIRED -> RETIRED; false when it was retired already.
bool mark_batch_retired(Database& db, int64_t batch_id);
void set_batch_expire_time(Database& db, int64_t batch_id, double expire_time);

// The file deleter's batch lifecycle (daemons/file_deleter/lib/batch_cleanup.h), each one
// statement over a list of batches:
// up to `limit` batches not retired whose expire_time (> 0) is at or before `now`;
std::vector<int64_t> fetch_expired_batches(Database& db, double now, int limit);
// these batches RETIRED (those not retired yet; returns how many changed);
int64_t mark_batches_retired(Database& db, const std::vector<int64_t>& ids);
// up to `limit` retired batches whose files are not deleted yet and whose jobs are all
// assimilated (nothing more will be written to the results store for them);
std::vector<int64_t> fetch_retired_batches_to_clean(Database& db, int limit);
// files_deleted = 1 for these batches.
void mark_batch_files_deleted(Database& db, const std::vector<int64_t>& ids);

// db_purge: up to `limit` retired batches whose files are deleted and whose workunits are
// all purged, by id; and their deletion with their sandbox associations.
std::vector<BatchRow> fetch_purgeable_batches(Database& db, int limit);
int64_t delete_batches(Database& db, const std::vector<int64_t>& ids);

// The assimilator's update, in its transaction: `done` more jobs finished with a
// canonical result (granting `credit`), `errors` more in error. fraction_done follows;
// an IN_PROGRESS batch whose jobs are all finished becomes COMPLETED at `now`.
void add_batch_progress(Database& db, int64_t batch_id, int done, int errors, double credit, int64_t now);

}  // namespace tharsis
