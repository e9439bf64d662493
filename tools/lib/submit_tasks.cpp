// Implementation of tools/lib/submit_tasks.h.
#include "tools/lib/submit_tasks.h"

#include <set>

#include "db/cluster_store.h"

namespace tharsis {

std::vector<TaskSubmission> generated_tasks(const std::string& prefix, int64_t count, int64_t iterations) {
  std::vector<TaskSubmission> tasks;
  for (int64_t i = 0; i < count; ++i) {
    std::string key = prefix + std::to_string(i);
    tasks.push_back(TaskSubmission{key, std::to_string(iterations) + " " + key});
  }
  return tasks;
}

Result<int64_t> submit_cluster_tasks(Database& db, int64_t appid, const std::vector<TaskSubmission>& tasks,
                                     int64_t user_id) {
  if (tasks.empty()) return make_error("submit_tasks: no tasks given");
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
        row.user_id = user_id;
        insert_cluster_task(d, row);
      }
    });
  } catch (const DbError& e) {
    if (e.duplicate_key())
      return make_error("submit_tasks: a task key was already submitted for this app: " +
                        std::string(e.what()));
    throw;
  }
  return static_cast<int64_t>(tasks.size());
}

}  // namespace tharsis
