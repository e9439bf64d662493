// SQL for submitters' sandboxes (BOINC's job_file and batch_file_assoc tables): which
// account holds which uploaded file (jf_<md5> in download/) until when, and which batches
// use them. A file stays while some account holds it or a batch not yet retired uses it;
// the file deleter removes rows past their delete_time and then the files nobody holds
// (daemons/file_deleter/lib/batch_cleanup.h). Every function is one statement.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "db/database.h"

namespace tharsis {

struct JobFileRow {
  int64_t id = 0;
  int64_t user_id = 0;
  std::string name;
  int64_t create_time = 0;
  int64_t delete_time = 0;
};

// The account holds each of `names` until at least `delete_time`: a new row (created
// `now`) where it held none, else its delete_time raised (never lowered).
void hold_job_files(Database& db, int64_t user_id, const std::vector<std::string>& names, int64_t now,
                    int64_t delete_time);

// Raises the delete_time of the account's existing rows for `names` to `delete_time`.
void extend_job_files(Database& db, int64_t user_id, const std::vector<std::string>& names,
                      int64_t delete_time);

// Of `names`, those the account holds, with their job_file ids. `lock` reads them
// FOR SHARE: a submission that uses them keeps the file deleter from removing the rows
// until it commits.
std::map<std::string, int64_t> held_job_files(Database& db, int64_t user_id,
                                              const std::vector<std::string>& names, bool lock = false);

// Whether some account holds the file (tools/check: an input kept for a sandbox is no leftover).
bool held_in_a_sandbox(Database& db, const std::string& name);

// The batch uses these job files (idempotent).
void associate_batch_files(Database& db, int64_t batch_id, const std::vector<int64_t>& job_file_ids);
// Forgets the associations of these batches (retired: their files need not stay for them).
void forget_batch_files(Database& db, const std::vector<int64_t>& batch_ids);

// Up to `limit` rows whose delete_time is before `now` and that no batch other than a
// retired one uses, oldest first.
std::vector<JobFileRow> fetch_expired_job_files(Database& db, int64_t now, int limit);
// Deletes these rows where they are still expired and unused (a row extended or newly
// used meanwhile stays); returns how many it deleted.
int64_t delete_expired_job_files(Database& db, const std::vector<int64_t>& ids, int64_t now);

}  // namespace tharsis
