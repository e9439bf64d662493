// Implementation of tools/lib/submit_tasks.h.
#include "tools/lib/submit_tasks.h"

#include <set>
#include <sstream>

#include "db/cluster_store.h"
#include "db/mariadb_errors.h"

namespace tharsis {
namespace {

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

}  // namespace

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

std::vector<TaskSubmission> generated_tasks(const std::string& prefix, int64_t count, int64_t iterations) {
  std::vector<TaskSubmission> tasks;
  for (int64_t i = 0; i < count; ++i) {
    std::string key = prefix + std::to_string(i);
    tasks.push_back(TaskSubmission{key, std::to_string(iterations) + " " + key});
  }
  return tasks;
}

Result<int64_t> submit_cluster_tasks(Database& db, int64_t appid, const std::vector<TaskSubmission>& tasks) {
  std::set<std::string> keys;
  for (const auto& t : tasks) {
    if (Status s = check_task(t, "submit_tasks"); !s.ok()) return make_error(s.error());
    if (!keys.insert(t.key).second) return make_error("submit_tasks: task '" + t.key + "' given twice");
  }
  try {
    db.transaction([&](Database& d) {
      int index = 0;
      for (const auto& t : tasks) {
        ClusterTaskRow row;
        row.appid = appid;
        row.task_key = t.key;
        row.task_index = index++;
        row.payload = t.payload;
        insert_cluster_task(d, row);
      }
    });
  } catch (const DbError& e) {
    if (e.code() == mariadb_error::kDupEntry)
      return make_error("submit_tasks: a task key was already submitted for this app: " +
                        std::string(e.what()));
    throw;
  }
  return static_cast<int64_t>(tasks.size());
}

}  // namespace tharsis
