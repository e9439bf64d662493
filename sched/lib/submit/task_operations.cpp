// Implementation of sched/lib/submit/task_operations.h.
#include "sched/lib/submit/task_operations.h"

#include "db/app_store.h"
#include "sched/lib/submit/submit_access.h"
#include "sched/lib/submit/submit_reply.h"
#include "tools/lib/submit_tasks.h"

namespace tharsis {
namespace {

constexpr size_t kMaxPayloadBytes = 1024;  // as tools/lib/submit_tasks.h checks

// Every <task><key>K</key><payload>P</payload></task> of the request, at most `max_count`.
Result<std::vector<TaskSubmission>> read_tasks(const SubmitDocument& doc, size_t max_count) {
  std::vector<TaskSubmission> tasks;
  size_t index = 0;
  for (pugi::xml_node node : doc.reader->root().children("task")) {
    if (++index > max_count) {
      return make_error("more than " + std::to_string(max_count) + " tasks in one request");
    }
    std::string path = child_path(doc.operation, "task", index);
    TaskSubmission task;
    pugi::xml_node key = node.child("key");
    if (!key) return doc.reader->error(node, path, "missing <key>");
    if (Status s = doc.reader->name(key, child_path(path, "key"), task.key); !s) return make_error(s.error());
    if (pugi::xml_node payload = node.child("payload")) {
      if (Status s =
              doc.reader->text(payload, child_path(path, "payload"), kMaxPayloadBytes, true, task.payload);
          !s)
        return make_error(s.error());
    }
    tasks.push_back(std::move(task));
  }
  if (tasks.empty()) return make_error("no <task> given");
  return tasks;
}

}  // namespace

Result<std::string> submit_tasks_operation(SubmitDocument& doc, SubmitSession& s) {
  auto app_name = optional_name(doc, "app_name");
  if (!app_name.ok()) return make_error(app_name.error());
  if (app_name->empty()) return make_error("missing <app_name>");
  auto app = fetch_app_by_name(s.db, *app_name);
  if (!app) return make_error("app not found: " + *app_name);
  auto user = authenticate_for_app(doc, s.db, app->id);
  if (!user.ok()) return make_error(user.error());
  auto tasks = read_tasks(doc, s.limits.max_jobs);
  if (!tasks.ok()) return make_error(tasks.error());
  auto submitted = submit_cluster_tasks(s.db, app->id, *tasks, user->id);
  if (!submitted.ok()) return make_error(submitted.error());
  std::string out;
  add_field(out, "ntasks", *submitted);
  return out;
}

}  // namespace tharsis
