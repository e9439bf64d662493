// Plain tasks for the clusterer as a submitter writes them (docs/reclustering.md), with no database:
// shared by tools/submit_tasks, submit_rpc's submit_tasks and tharsis-submit. A task is a
// key (unique within its app) and a one-line payload the app reads.
#pragma once

#include <string>
#include <vector>

#include "lib/result.h"

namespace tharsis {

struct TaskSubmission {
  std::string key;      // 1..254 characters, no whitespace
  std::string payload;  // one line, at most 1024 bytes
};

// A key of 1..254 characters without whitespace and a payload of one line of at most
// 1024 bytes; the error starts with `where`.
Status check_task(const TaskSubmission& task, const std::string& where);

// Tasks file: one task per non-empty line, "KEY PAYLOAD..."; lines starting '#' are
// comments. Errors name the line.
Result<std::vector<TaskSubmission>> parse_task_file(const std::string& text);

}  // namespace tharsis
