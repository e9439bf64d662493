// Implementation of db/cluster_store.h.
#include "db/cluster_store.h"

#include <algorithm>

#include "db/id_list.h"
#include "db/sql.h"

namespace tharsis {
namespace {

const std::string kTaskColumns =
    "id, workunitid, task_key, task_index, state, attempts, appid, payload, retry_of, output, done_time, "
    "user_id";
const std::string kJobColumns =
    "workunitid, appid, k, create_time, state, failed_tasks, job_failed, run_time, turnaround, settle_time";

ClusterTaskRow read_task(sql::ResultSet& r) {
  ClusterTaskRow t;
  t.id = r.getInt64("id");
  t.workunitid = r.getInt64("workunitid");
  t.task_key = r.getString("task_key");
  t.task_index = r.getInt("task_index");
  t.state = static_cast<ClusterTaskState>(r.getInt("state"));
  t.attempts = r.getInt("attempts");
  t.appid = r.getInt64("appid");
  t.payload = r.getString("payload");
  t.retry_of = r.getInt64("retry_of");
  t.output = r.getString("output");
  t.done_time = r.getInt64("done_time");
  t.user_id = r.getInt64("user_id");
  return t;
}

ClusterJobRow read_job(sql::ResultSet& r) {
  ClusterJobRow j;
  j.workunitid = r.getInt64("workunitid");
  j.appid = r.getInt64("appid");
  j.k = r.getInt("k");
  j.create_time = r.getInt64("create_time");
  j.state = static_cast<ClusterJobState>(r.getInt("state"));
  j.failed_tasks = r.getInt("failed_tasks");
  j.job_failed = r.getInt("job_failed") != 0;
  j.run_time = r.getDouble("run_time");
  j.turnaround = r.getDouble("turnaround");
  j.settle_time = r.getInt64("settle_time");
  return j;
}

std::vector<ClusterTaskRow> read_tasks(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<ClusterTaskRow> out;
  while (rows->next()) out.push_back(read_task(*rows));
  return out;
}

std::vector<ClusterJobRow> read_jobs(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<ClusterJobRow> out;
  while (rows->next()) out.push_back(read_job(*rows));
  return out;
}

}  // namespace

int64_t insert_cluster_task(Database& db, const ClusterTaskRow& t) {
  exec(db,
       "INSERT INTO cluster_task (workunitid, task_key, task_index, state, attempts, appid, payload, "
       "retry_of, output, done_time, user_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
       t.workunitid, t.task_key, t.task_index, t.state, t.attempts, t.appid, t.payload, t.retry_of, t.output,
       t.done_time, t.user_id);
  return last_insert_id(db);
}

std::vector<int64_t> apps_with_waiting_tasks(Database& db) {
  auto rows = query(db, "SELECT DISTINCT appid FROM cluster_task WHERE state = ? ORDER BY appid",
                    ClusterTaskState::Waiting);
  std::vector<int64_t> out;
  while (rows->next()) out.push_back(rows->getInt64(1));
  return out;
}

std::vector<ClusterTaskRow> fetch_fresh_tasks(Database& db, int64_t appid, int limit) {
  return read_tasks(query(db,
                          "SELECT " + kTaskColumns +
                              " FROM cluster_task WHERE appid = ? AND state = ? AND retry_of = 0 "
                              "ORDER BY id LIMIT ?",
                          appid, ClusterTaskState::Waiting, limit));
}

std::vector<ClusterTaskRow> fetch_retry_tasks(Database& db, int64_t appid, int limit) {
  return read_tasks(query(db,
                          "SELECT " + kTaskColumns +
                              " FROM cluster_task WHERE appid = ? AND state = ? AND retry_of > 0 "
                              "ORDER BY retry_of, id LIMIT ?",
                          appid, ClusterTaskState::Waiting, limit));
}

int64_t count_tasks_left(Database& db, int64_t appid) {
  return query_int(db, "SELECT COUNT(*) FROM cluster_task WHERE appid = ? AND state <> ?", appid,
                   ClusterTaskState::Done);
}

int64_t count_queued_jobs(Database& db, int64_t appid) {
  return query_int(db,
                   "SELECT COUNT(*) FROM cluster_job j WHERE j.appid = ? AND j.state = ? AND NOT EXISTS "
                   "(SELECT 1 FROM result r WHERE r.workunitid = j.workunitid AND r.server_state <> ?)",
                   appid, ClusterJobState::Live, ServerState::Unsent);
}

bool put_task_in_job(Database& db, int64_t task_id, int64_t workunitid) {
  return exec(db,
              "UPDATE cluster_task SET state = ?, workunitid = ?, attempts = attempts + 1, retry_of = 0 "
              "WHERE id = ? AND state = ? AND workunitid = 0",
              ClusterTaskState::InJob, workunitid, task_id, ClusterTaskState::Waiting) == 1;
}

bool mark_task_done(Database& db, int64_t task_id, int64_t workunitid, const std::string& output,
                    int64_t now) {
  return exec(db,
              "UPDATE cluster_task SET state = ?, output = ?, done_time = ? "
              "WHERE id = ? AND state = ? AND workunitid = ?",
              ClusterTaskState::Done, output, now, task_id, ClusterTaskState::InJob, workunitid) == 1;
}

bool return_task_for_retry(Database& db, int64_t task_id, int64_t workunitid) {
  return exec(db,
              "UPDATE cluster_task SET state = ?, workunitid = 0, retry_of = ? "
              "WHERE id = ? AND state = ? AND workunitid = ?",
              ClusterTaskState::Waiting, workunitid, task_id, ClusterTaskState::InJob, workunitid) == 1;
}

std::vector<ClusterTaskRow> fetch_tasks_in_job(Database& db, int64_t workunitid, bool for_update) {
  return read_tasks(query(db,
                          "SELECT " + kTaskColumns +
                              " FROM cluster_task WHERE workunitid = ? AND state = ? ORDER BY id" +
                              (for_update ? " FOR UPDATE" : ""),
                          workunitid, ClusterTaskState::InJob));
}

void insert_cluster_job(Database& db, const ClusterJobRow& j) {
  exec(db, "INSERT INTO cluster_job (" + kJobColumns + ") VALUES (?,?,?,?,?,?,?,?,?,?)", j.workunitid,
       j.appid, j.k, j.create_time, j.state, j.failed_tasks, j.job_failed, j.run_time, j.turnaround,
       j.settle_time);
}

std::optional<ClusterJobRow> fetch_cluster_job(Database& db, int64_t workunitid, bool for_update) {
  auto rows = read_jobs(query(
      db,
      "SELECT " + kJobColumns + " FROM cluster_job WHERE workunitid = ?" + (for_update ? " FOR UPDATE" : ""),
      workunitid));
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

std::vector<ClusterJobRow> lock_live_cluster_jobs(Database& db, const std::vector<int64_t>& workunitids) {
  if (workunitids.empty()) return {};
  std::vector<int64_t> ids = workunitids;
  std::sort(ids.begin(), ids.end());
  // The list drives the join, each job read by its key: only these rows are locked.
  return read_jobs(query(db,
                         "SELECT " + kJobColumns + " FROM " + kIdListTable +
                             " STRAIGHT_JOIN cluster_job FORCE INDEX (PRIMARY) ON cluster_job.workunitid = "
                             "wanted.wanted_id WHERE cluster_job.state = ? FOR UPDATE",
                         id_list_json(ids), ClusterJobState::Live));
}

bool settle_cluster_job(Database& db, const ClusterJobRow& j) {
  return exec(db,
              "UPDATE cluster_job SET state = ?, failed_tasks = ?, job_failed = ?, run_time = ?, "
              "turnaround = ?, settle_time = ? WHERE workunitid = ? AND state = ?",
              ClusterJobState::Settled, j.failed_tasks, j.job_failed, j.run_time, j.turnaround, j.settle_time,
              j.workunitid, ClusterJobState::Live) == 1;
}

std::vector<ClusterJobRow> fetch_settled_window(Database& db, int64_t appid, int limit) {
  auto jobs = read_jobs(query(db,
                              "SELECT " + kJobColumns +
                                  " FROM cluster_job WHERE appid = ? AND state = ? "
                                  "ORDER BY settle_time DESC, workunitid DESC LIMIT ?",
                              appid, ClusterJobState::Settled, limit));
  return {jobs.rbegin(), jobs.rend()};
}

void insert_failure_stat(Database& db, const FailureStatRow& s) {
  exec(db,
       "INSERT INTO failure_stat (appid, time, jobs, tasks, failed_jobs, failed_tasks, alpha, beta, "
       "cluster_size, model, policy, tasks_left, hosts, task_time, job_overhead) "
       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
       s.appid, s.time, s.jobs, s.tasks, s.failed_jobs, s.failed_tasks, s.alpha, s.beta, s.cluster_size,
       s.model, s.policy, s.tasks_left, s.hosts, s.task_time, s.job_overhead);
}

std::optional<FailureStatRow> fetch_latest_failure_stat(Database& db, int64_t appid) {
  auto r = query(
      db,
      "SELECT id, appid, time, jobs, tasks, failed_jobs, failed_tasks, alpha, beta, cluster_size, model, "
      "policy, tasks_left, hosts, task_time, job_overhead FROM failure_stat WHERE appid = ? "
      "ORDER BY time DESC, id DESC LIMIT 1",
      appid);
  if (!r->next()) return std::nullopt;
  FailureStatRow s;
  s.id = r->getInt64("id");
  s.appid = r->getInt64("appid");
  s.time = r->getInt64("time");
  s.jobs = r->getInt("jobs");
  s.tasks = r->getInt("tasks");
  s.failed_jobs = r->getInt("failed_jobs");
  s.failed_tasks = r->getInt("failed_tasks");
  s.alpha = r->getDouble("alpha");
  s.beta = r->getDouble("beta");
  s.cluster_size = r->getInt("cluster_size");
  s.model = r->getString("model");
  s.policy = r->getString("policy");
  s.tasks_left = r->getInt64("tasks_left");
  s.hosts = r->getInt64("hosts");
  s.task_time = r->getDouble("task_time");
  s.job_overhead = r->getDouble("job_overhead");
  return s;
}

std::vector<ClusterTaskRow> fetch_cluster_tasks_after(Database& db, int64_t after_id, int limit) {
  return read_tasks(query(
      db, "SELECT " + kTaskColumns + " FROM cluster_task WHERE id > ? ORDER BY id LIMIT ?", after_id, limit));
}

std::vector<ClusterJobRow> fetch_cluster_jobs_after(Database& db, int64_t after_workunitid, int limit) {
  return read_jobs(query(
      db, "SELECT " + kJobColumns + " FROM cluster_job WHERE workunitid > ? ORDER BY workunitid LIMIT ?",
      after_workunitid, limit));
}

}  // namespace tharsis
