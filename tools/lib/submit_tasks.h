// The core of tools/submit_tasks: hand n plain tasks of an app to the clusterer
// (docs/reclustering.md). Tasks go into cluster_task as WAITING, all in one transaction; the clusterer forms
// the jobs. Tasks and the tasks file are lib/task_file.h's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/result.h"
#include "lib/task_file.h"  // TaskSubmission, parse_task_file

namespace tharsis {

// `count` tasks "<prefix><i>" (i from 0) for the task app: payload "<iterations> <key>"
// (task_runner.h: hash the key `iterations` times).
std::vector<TaskSubmission> generated_tasks(const std::string& prefix, int64_t count, int64_t iterations);

// Inserts every task or none, owned by `user_id` (0: an admin on the server); returns how
// many. Shared by tools/submit_tasks and submit_rpc's submit_tasks. Errors: no tasks, a
// bad key or payload, a key given twice or already submitted for this app (named).
Result<int64_t> submit_cluster_tasks(Database& db, int64_t appid, const std::vector<TaskSubmission>& tasks,
                                     int64_t user_id = 0);

}  // namespace tharsis
