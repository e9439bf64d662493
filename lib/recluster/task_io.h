// The two files of a clustered job (docs/reclustering.md), shared by the server and the task app:
//  task list (the job's input "in"), one task per line after a header:
//    tharsis-tasks 1
//    task <id> <payload to end of line>
//  task report (the job's output "out"), one line per task of the list, same order:
//    tharsis-task-report 1
//    task <id> ok <output to end of line>
//    task <id> failed <reason to end of line>
// Per-task success travels inside the canonical output, so the wire protocol is BOINC's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/result.h"

namespace tharsis {

struct TaskSpec {
  int64_t id = 0;
  std::string payload;  // one line: no '\n' or '\r'
};

struct TaskReport {
  int64_t id = 0;
  bool ok = false;
  std::string text;  // output when ok, reason when failed; one line
};

std::string render_task_list(const std::vector<TaskSpec>& tasks);
// Errors name the line: bad header, a line not "task <id> ...", a non-positive or
// repeated id.
Result<std::vector<TaskSpec>> parse_task_list(const std::string& text);

std::string render_task_report(const std::vector<TaskReport>& reports);
Result<std::vector<TaskReport>> parse_task_report(const std::string& text);

// The report must cover exactly the listed tasks, in order; otherwise the job's output
// cannot be trusted task by task (the caller treats the job as failed).
Status check_report_matches(const std::vector<int64_t>& task_ids, const std::vector<TaskReport>& reports);

}  // namespace tharsis
