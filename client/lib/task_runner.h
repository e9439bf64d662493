// The task app's work (DESIGN §7): run a clustered job's task list (lib/recluster/
// task_io.h) task by task and write the per-task report. A task's payload is
// "<iterations> <seed>"; its output is the hex of the seed hashed `iterations` times.
// Failures are injected by the host's HostBehaviour (task failure: that task reports
// "failed"; job failure: the job crashes and writes no report; garbage: every output
// is wrong but "ok").
#pragma once

#include <string>

#include "client/lib/host_behaviour.h"
#include "lib/result.h"

namespace tharsis {

struct TaskJobRun {
  bool crashed = false;  // job failure: exit non-zero, no report
  std::string report;    // the output file's text when not crashed
  int failed_tasks = 0;
};

// Errors: an unreadable task list or a payload not "<iterations 1..10^7> <seed>".
Result<TaskJobRun> run_task_job(const std::string& task_list, HostBehaviour& host);

// Fault settings from the environment (the simulated client or a test sets them):
// THARSIS_TASK_FAILURE_RATE, THARSIS_JOB_FAILURE_RATE, THARSIS_GARBAGE_RATE in [0, 1];
// THARSIS_FAULT_SEED (default 1). Errors name the variable.
Result<HostFaults> host_faults_from_env(uint64_t& seed);

}  // namespace tharsis
