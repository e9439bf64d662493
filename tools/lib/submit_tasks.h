// The core of tools/submit_tasks: hand n plain tasks of an app to the clusterer (DESIGN
// §7). Tasks go into cluster_task as WAITING, all in one transaction; the clusterer forms
// the jobs. A task is a key (unique within the app) and a one-line payload the app reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/result.h"

namespace tharsis {

struct TaskSubmission {
  std::string key;      // 1..254 characters, no whitespace
  std::string payload;  // one line, at most 1024 bytes
};

// Tasks file: one task per non-empty line, "KEY PAYLOAD..."; lines starting '#' are
// comments. Errors name the line.
Result<std::vector<TaskSubmission>> parse_task_file(const std::string& text);

// `count` tasks "<prefix><i>" (i from 0) for the task app: payload "<iterations> <key>"
// (task_runner.h: hash the key `iterations` times).
std::vector<TaskSubmission> generated_tasks(const std::string& prefix, int64_t count, int64_t iterations);

// Inserts every task or none; returns how many. Errors: a bad key or payload, a key
// already submitted for this app (named).
Result<int64_t> submit_cluster_tasks(Database& db, int64_t appid, const std::vector<TaskSubmission>& tasks);

}  // namespace tharsis
