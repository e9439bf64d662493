// Implementation of db/batch_store.h.
#include "db/batch_store.h"

#include "db/id_list.h"
#include "db/sql.h"
#include "db/states.h"

namespace tharsis {
namespace {

const std::string kColumns =
    "id, user_id, create_time, est_completion_time, njobs, njobs_done, nerror_jobs, fraction_done, state, "
    "completion_time, credit_estimate, credit_canonical, name, app_id, project_state, description, "
    "expire_time";

BatchRow read_row(sql::ResultSet& r) {
  BatchRow b;
  b.id = r.getInt64("id");
  b.user_id = r.getInt64("user_id");
  b.create_time = r.getInt64("create_time");
  b.est_completion_time = r.getDouble("est_completion_time");
  b.njobs = r.getInt("njobs");
  b.njobs_done = r.getInt("njobs_done");
  b.nerror_jobs = r.getInt("nerror_jobs");
  b.fraction_done = r.getDouble("fraction_done");
  b.state = static_cast<BatchState>(r.getInt("state"));
  b.completion_time = r.getInt64("completion_time");
  b.credit_estimate = r.getDouble("credit_estimate");
  b.credit_canonical = r.getDouble("credit_canonical");
  b.name = r.getString("name");
  b.app_id = r.getInt64("app_id");
  b.project_state = r.getInt("project_state");
  b.description = r.getString("description");
  b.expire_time = r.getDouble("expire_time");
  return b;
}

std::vector<BatchRow> read_all(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<BatchRow> out;
  while (rows->next()) out.push_back(read_row(*rows));
  return out;
}

std::optional<BatchRow> read_one(std::unique_ptr<sql::ResultSet> rows) {
  if (!rows->next()) return std::nullopt;
  return read_row(*rows);
}

}  // namespace

int64_t insert_batch(Database& db, const BatchRow& b) {
  exec(db,
       "INSERT INTO batch (user_id, create_time, est_completion_time, njobs, njobs_done, nerror_jobs, "
       "fraction_done, state, completion_time, credit_estimate, credit_canonical, name, app_id, "
       "project_state, "
       "description, expire_time) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
       b.user_id, b.create_time, b.est_completion_time, b.njobs, b.njobs_done, b.nerror_jobs, b.fraction_done,
       b.state, b.completion_time, b.credit_estimate, b.credit_canonical, b.name, b.app_id, b.project_state,
       b.description, b.expire_time);
  return last_insert_id(db);
}

std::optional<BatchRow> fetch_batch(Database& db, int64_t id, bool for_update) {
  return read_one(
      query(db, "SELECT " + kColumns + " FROM batch WHERE id = ?" + (for_update ? " FOR UPDATE" : ""), id));
}

std::optional<BatchRow> fetch_batch_by_name(Database& db, const std::string& name, bool for_update) {
  return read_one(query(
      db, "SELECT " + kColumns + " FROM batch WHERE name = ?" + (for_update ? " FOR UPDATE" : ""), name));
}

std::vector<BatchRow> fetch_user_batches(Database& db, int64_t user_id, bool include_retired) {
  if (include_retired) {
    return read_all(
        query(db, "SELECT " + kColumns + " FROM batch WHERE user_id = ? ORDER BY id DESC", user_id));
  }
  return read_all(
      query(db, "SELECT " + kColumns + " FROM batch WHERE user_id = ? AND state <> ? ORDER BY id DESC",
            user_id, BatchState::Retired));
}

std::vector<BatchRow> fetch_batches(Database& db, const std::vector<int64_t>& ids) {
  return read_all(query(db,
                        "SELECT " + kColumns + " FROM " + kIdListTable +
                            " STRAIGHT_JOIN batch ON batch.id = wanted.wanted_id ORDER BY id",
                        id_list_json(ids)));
}

int64_t count_user_jobs_in_progress(Database& db, int64_t user_id) {
  return query_int(
      db,
      "SELECT COALESCE(SUM(njobs - njobs_done - nerror_jobs), 0) FROM batch WHERE user_id = ? AND state = ?",
      user_id, BatchState::InProgress);
}

bool start_batch(Database& db, int64_t batch_id, int njobs, double credit_estimate) {
  return exec(db, "UPDATE batch SET njobs = ?, credit_estimate = ?, state = ? WHERE id = ? AND state = ?",
              njobs, credit_estimate, BatchState::InProgress, batch_id, BatchState::Init) > 0;
}

bool mark_batch_aborted(Database& db, int64_t batch_id, int64_t now) {
  return exec(db, "UPDATE batch SET state = ?, completion_time = ? WHERE id = ? AND state IN (?,?,?)",
              BatchState::Aborted, now, batch_id, BatchState::Init, BatchState::InProgress,
              BatchState::Completed) > 0;
}

bool mark_batch_retired(Database& db, int64_t batch_id) {
  return exec(db, "UPDATE batch SET state = ? WHERE id = ? AND state <> ?", BatchState::Retired, batch_id,
              BatchState::Retired) > 0;
}

void set_batch_expire_time(Database& db, int64_t batch_id, double expire_time) {
  exec(db, "UPDATE batch SET expire_time = ? WHERE id = ?", expire_time, batch_id);
}

std::vector<int64_t> fetch_expired_batches(Database& db, double now, int limit) {
  auto rows = query(
      db,
      "SELECT id FROM batch FORCE INDEX (batch_cleanup) WHERE files_deleted = 0 AND state IN (?,?,?,?) AND "
      "expire_time > 0 AND expire_time <= ? ORDER BY expire_time, id LIMIT ?",
      BatchState::Init, BatchState::InProgress, BatchState::Completed, BatchState::Aborted, now, limit);
  std::vector<int64_t> ids;
  while (rows->next()) ids.push_back(rows->getInt64(1));
  return ids;
}

int64_t mark_batches_retired(Database& db, const std::vector<int64_t>& ids) {
  if (ids.empty()) return 0;
  return exec(db,
              "UPDATE " + kIdListTable +
                  " STRAIGHT_JOIN batch b ON b.id = wanted.wanted_id SET b.state = ? WHERE b.state <> ?",
              id_list_json(ids), BatchState::Retired, BatchState::Retired);
}

std::vector<int64_t> fetch_retired_batches_to_clean(Database& db, int limit) {
  auto rows = query(
      db,
      "SELECT b.id FROM batch b FORCE INDEX (batch_cleanup) WHERE b.files_deleted = 0 AND b.state = ? AND "
      "NOT "
      "EXISTS (SELECT 1 FROM workunit w FORCE INDEX (wu_batch) WHERE w.batch = b.id AND w.assimilate_state "
      "<> ?) "
      "ORDER BY b.id LIMIT ?",
      BatchState::Retired, AssimilateState::Done, limit);
  std::vector<int64_t> ids;
  while (rows->next()) ids.push_back(rows->getInt64(1));
  return ids;
}

void mark_batch_files_deleted(Database& db, const std::vector<int64_t>& ids) {
  if (ids.empty()) return;
  exec(db,
       "UPDATE " + kIdListTable + " STRAIGHT_JOIN batch b ON b.id = wanted.wanted_id SET b.files_deleted = 1",
       id_list_json(ids));
}

std::vector<BatchRow> fetch_purgeable_batches(Database& db, int limit) {
  return read_all(
      query(db,
            "SELECT " + kColumns +
                " FROM batch FORCE INDEX (batch_cleanup) WHERE files_deleted = 1 AND state = ? AND NOT "
                "EXISTS (SELECT 1 FROM workunit w FORCE INDEX (wu_batch) WHERE w.batch = batch.id) "
                "ORDER BY id LIMIT ?",
            BatchState::Retired, limit));
}

int64_t delete_batches(Database& db, const std::vector<int64_t>& ids) {
  if (ids.empty()) return 0;
  exec(db,
       "DELETE a FROM " + kIdListTable + " STRAIGHT_JOIN batch_file_assoc a ON a.batch_id = wanted.wanted_id",
       id_list_json(ids));
  return exec(db, "DELETE b FROM " + kIdListTable + " STRAIGHT_JOIN batch b ON b.id = wanted.wanted_id",
              id_list_json(ids));
}

void add_batch_progress(Database& db, int64_t batch_id, int done, int errors, double credit, int64_t now) {
  // A single-table UPDATE assigns left to right, each assignment seeing the ones before:
  // fraction_done and the state read the new counts.
  exec(db,
       "UPDATE batch SET njobs_done = njobs_done + ?, nerror_jobs = nerror_jobs + ?, "
       "credit_canonical = credit_canonical + ?, "
       "fraction_done = IF(njobs > 0, LEAST(1, (njobs_done + nerror_jobs) / njobs), 0), "
       "completion_time = IF(state = ? AND njobs_done + nerror_jobs >= njobs, ?, completion_time), "
       "state = IF(state = ? AND njobs_done + nerror_jobs >= njobs, ?, state) WHERE id = ?",
       done, errors, credit, BatchState::InProgress, now, BatchState::InProgress, BatchState::Completed,
       batch_id);
}

}  // namespace tharsis
