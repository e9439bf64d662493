// Implementation of lib/task_file.h.
#include "lib/task_file.h"

#include <sstream>

namespace tharsis {

Status check_task(const TaskSubmission& t, const std::string& where) {
  if (t.key.empty() || t.key.size() > 254 || t.key.find_first_of(" \t\r\n") != std::string::npos) {
    return make_error(where + ": expected a task key of 1..254 characters without spaces, found '" +
                      t.key.substr(0, 60) + "'");
  }
  if (t.payload.size() > 1024 || t.payload.find_first_of("\r\n") != std::string::npos) {
    return make_error(where + ": task '" + t.key + "' payload must be one line of at most 1024 bytes");
  }
  return Status::success();
}

Result<std::vector<TaskSubmission>> parse_task_file(const std::string& text) {
  std::vector<TaskSubmission> tasks;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    TaskSubmission t{line.substr(0, space), space == std::string::npos ? "" : line.substr(space + 1)};
    if (Status s = check_task(t, "tasks file line " + std::to_string(number)); !s.ok())
      return make_error(s.error());
    tasks.push_back(std::move(t));
  }
  return tasks;
}

}  // namespace tharsis
