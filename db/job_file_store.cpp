// Implementation of db/job_file_store.h.
#include "db/job_file_store.h"

#include "db/batch_store.h"
#include "db/id_list.h"
#include "db/sql.h"

namespace tharsis {
namespace {

// A job_file row `jf` used by a batch not yet retired.
const std::string kUsedByLiveBatch =
    "EXISTS (SELECT 1 FROM batch_file_assoc a FORCE INDEX (batch_file_assoc_file) JOIN batch b ON b.id = "
    "a.batch_id WHERE a.job_file_id = jf.id AND b.state <> ?)";

}  // namespace

void hold_job_files(Database& db, int64_t user_id, const std::vector<std::string>& names, int64_t now,
                    int64_t delete_time) {
  if (names.empty()) return;
  exec(db,
       "INSERT INTO job_file (user_id, name, create_time, delete_time) SELECT ?, wanted.wanted_name, ?, ? "
       "FROM " +
           kNameListTable +
           " ON DUPLICATE KEY UPDATE delete_time = GREATEST(delete_time, VALUES(delete_time))",
       user_id, now, delete_time, name_list_json(names));
}

void extend_job_files(Database& db, int64_t user_id, const std::vector<std::string>& names,
                      int64_t delete_time) {
  if (names.empty()) return;
  exec(db,
       "UPDATE " + kNameListTable +
           " STRAIGHT_JOIN job_file jf ON jf.user_id = ? AND jf.name = wanted.wanted_name "
           "SET jf.delete_time = GREATEST(jf.delete_time, ?)",
       name_list_json(names), user_id, delete_time);
}

std::map<std::string, int64_t> held_job_files(Database& db, int64_t user_id,
                                              const std::vector<std::string>& names, bool lock) {
  std::map<std::string, int64_t> held;
  if (names.empty()) return held;
  auto rows = query(db,
                    "SELECT jf.name, jf.id FROM " + kNameListTable +
                        " STRAIGHT_JOIN job_file jf ON jf.user_id = ? AND jf.name = wanted.wanted_name" +
                        (lock ? " LOCK IN SHARE MODE" : ""),
                    name_list_json(names), user_id);
  while (rows->next()) held.emplace(rows->getString(1), rows->getInt64(2));
  return held;
}

bool held_in_a_sandbox(Database& db, const std::string& name) {
  return query_int(db, "SELECT COUNT(*) FROM job_file FORCE INDEX (job_file_name) WHERE name = ?", name) > 0;
}

void associate_batch_files(Database& db, int64_t batch_id, const std::vector<int64_t>& job_file_ids) {
  if (job_file_ids.empty()) return;
  exec(db,
       "INSERT IGNORE INTO batch_file_assoc (batch_id, job_file_id) SELECT ?, wanted.wanted_id FROM " +
           kIdListTable,
       batch_id, id_list_json(job_file_ids));
}

void forget_batch_files(Database& db, const std::vector<int64_t>& batch_ids) {
  if (batch_ids.empty()) return;
  exec(db,
       "DELETE a FROM " + kIdListTable + " STRAIGHT_JOIN batch_file_assoc a ON a.batch_id = wanted.wanted_id",
       id_list_json(batch_ids));
}

std::vector<JobFileRow> fetch_expired_job_files(Database& db, int64_t now, int limit) {
  auto rows =
      query(db,
            "SELECT jf.id, jf.user_id, jf.name, jf.create_time, jf.delete_time FROM job_file jf FORCE INDEX "
            "(job_file_delete_time) WHERE jf.delete_time < ? AND NOT " +
                kUsedByLiveBatch + " ORDER BY jf.delete_time, jf.id LIMIT ?",
            now, BatchState::Retired, limit);
  std::vector<JobFileRow> out;
  while (rows->next()) {
    out.push_back(JobFileRow{rows->getInt64(1), rows->getInt64(2), rows->getString(3), rows->getInt64(4),
                             rows->getInt64(5)});
  }
  return out;
}

int64_t delete_expired_job_files(Database& db, const std::vector<int64_t>& ids, int64_t now) {
  if (ids.empty()) return 0;
  return exec(db,
              "DELETE jf FROM " + kIdListTable +
                  " STRAIGHT_JOIN job_file jf ON jf.id = wanted.wanted_id WHERE jf.delete_time < ? AND NOT " +
                  kUsedByLiveBatch,
              id_list_json(ids), now, BatchState::Retired);
}

}  // namespace tharsis
