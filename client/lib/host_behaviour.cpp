// Implementation of client/lib/host_behaviour.h.
#include "client/lib/host_behaviour.h"

#include <algorithm>

namespace tharsis {

bool HostBehaviour::task_fails() { return chance(faults_.task_failure_rate); }

JobFate HostBehaviour::run_job(int tasks, int& failed_tasks) {
  std::vector<bool> task_failed;
  JobFate fate = run_tasks(tasks, task_failed);
  failed_tasks = 0;
  for (bool failed : task_failed) failed_tasks += failed ? 1 : 0;
  return fate;
}

JobFate HostBehaviour::run_tasks(int tasks, std::vector<bool>& task_failed) {
  task_failed.assign(static_cast<size_t>(std::max(tasks, 0)), false);
  if (chance(faults_.job_failure_rate)) {
    task_failed.assign(task_failed.size(), true);
    return JobFate::JobFailure;
  }
  bool any = false;
  for (size_t i = 0; i < task_failed.size(); ++i) any |= (task_failed[i] = task_fails());
  if (!any && chance(faults_.garbage_rate)) return JobFate::Garbage;
  return JobFate::Success;
}

}  // namespace tharsis
