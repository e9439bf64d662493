// SQL for reclustering (docs/reclustering.md): tables cluster_task, cluster_job and failure_stat,
// behind typed functions. Every move of a task is a guarded UPDATE (expected state and
// job in the WHERE clause) returning whether it wrote, so a caller inside a transaction
// can refuse a stale plan (require_written) and a task is never in two places.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/rows.h"

namespace tharsis {

// Submission: a new WAITING task; returns its id. Throws DbError (duplicate_key()) on a duplicate key.
int64_t insert_cluster_task(Database& db, const ClusterTaskRow& task);

// Apps with WAITING tasks.
std::vector<int64_t> apps_with_waiting_tasks(Database& db);
// WAITING tasks never run (retry_of = 0), by id, at most `limit`.
std::vector<ClusterTaskRow> fetch_fresh_tasks(Database& db, int64_t appid, int limit);
// WAITING tasks that failed in a job, ordered by (retry_of, id) so a job's tasks are
// adjacent; at most `limit`.
std::vector<ClusterTaskRow> fetch_retry_tasks(Database& db, int64_t appid, int limit);
// Tasks of `appid` not DONE (n, the tasks left).
int64_t count_tasks_left(Database& db, int64_t appid);
// Live jobs of `appid` whose workunit has no result sent yet (the queue the clusterer
// keeps short, so later jobs are sized with later estimates).
int64_t count_queued_jobs(Database& db, int64_t appid);

// WAITING (in no job) -> IN_JOB of `workunitid`, attempts + 1. False if not WAITING.
bool put_task_in_job(Database& db, int64_t task_id, int64_t workunitid);
// IN_JOB of `workunitid` -> DONE with the app's output. False if not there.
bool mark_task_done(Database& db, int64_t task_id, int64_t workunitid, const std::string& output,
                    int64_t now);
// IN_JOB of `workunitid` -> WAITING with retry_of = workunitid. False if not there.
bool return_task_for_retry(Database& db, int64_t task_id, int64_t workunitid);
// The tasks IN_JOB of a workunit, by id; for_update locks them.
std::vector<ClusterTaskRow> fetch_tasks_in_job(Database& db, int64_t workunitid, bool for_update = false);

void insert_cluster_job(Database& db, const ClusterJobRow& job);
std::optional<ClusterJobRow> fetch_cluster_job(Database& db, int64_t workunitid, bool for_update = false);
// The LIVE jobs among these workunits, locked FOR UPDATE, in one statement whatever the
// list's length (the assimilator's batch: a workunit that is no live job costs nothing).
// Rows are locked in ascending workunitid order, as the daemons lock workunits.
std::vector<ClusterJobRow> lock_live_cluster_jobs(Database& db, const std::vector<int64_t>& workunitids);
// LIVE -> SETTLED with the outcome fields of `job`. False if it was not LIVE.
bool settle_cluster_job(Database& db, const ClusterJobRow& job);
// The app's `limit` most recently settled jobs, oldest first (the estimator's window).
std::vector<ClusterJobRow> fetch_settled_window(Database& db, int64_t appid, int limit);

void insert_failure_stat(Database& db, const FailureStatRow& row);
std::optional<FailureStatRow> fetch_latest_failure_stat(Database& db, int64_t appid);

// For tools/check: every task and every job of the project, by id (small projects; the
// checker pages through workunits the same way).
std::vector<ClusterTaskRow> fetch_cluster_tasks_after(Database& db, int64_t after_id, int limit);
std::vector<ClusterJobRow> fetch_cluster_jobs_after(Database& db, int64_t after_workunitid, int limit);

}  // namespace tharsis
