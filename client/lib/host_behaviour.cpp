// Implementation of client/lib/host_behaviour.h.
#include "client/lib/host_behaviour.h"

namespace tharsis {

bool HostBehaviour::task_fails() { return chance(faults_.task_failure_rate); }

JobFate HostBehaviour::run_job(int tasks, int& failed_tasks) {
  failed_tasks = 0;
  if (chance(faults_.job_failure_rate)) {
    failed_tasks = tasks;
    return JobFate::JobFailure;
  }
  for (int i = 0; i < tasks; ++i) failed_tasks += task_fails();
  if (failed_tasks == 0 && chance(faults_.garbage_rate)) return JobFate::Garbage;
  return JobFate::Success;
}

}  // namespace tharsis
