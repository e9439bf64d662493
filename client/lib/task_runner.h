// The task app's work (docs/reclustering.md): run a clustered job's task list (lib/recluster/
// task_io.h) task by task and write the per-task report. A task's payload is
// "<iterations> <seed>"; its output is the hex of the seed hashed `iterations` times.
// Failures are injected by the host's HostBehaviour (task failure: that task reports
// "failed"; job failure: the job crashes and writes no report; garbage: every output
// is wrong but "ok").
// The environment below is the contract between the task app and whoever injects its
// faults: the simulated client with inject=app (client/lib/simulated_host.h) or a test.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "client/lib/host_behaviour.h"
#include "lib/result.h"

namespace tharsis {

struct TaskJobRun {
  bool crashed = false;  // job failure: exit non-zero, no report
  std::string report;    // the output file's text when not crashed
  int failed_tasks = 0;
};

// Errors: an unreadable task list or a payload not "<iterations 1..10^7> <seed>".
// task_seconds > 0 is SIMULATED compute time: the run sleeps that long per task (a job
// failure after all of them), on top of the hashing, so that many simulated hosts
// sharing a few cores each show a per-task time φ̄ without burning CPU for it.
Result<TaskJobRun> run_task_job(const std::string& task_list, HostBehaviour& host, double task_seconds = 0);

inline constexpr const char* kEnvTaskFailureRate = "THARSIS_TASK_FAILURE_RATE";
inline constexpr const char* kEnvJobFailureRate = "THARSIS_JOB_FAILURE_RATE";
inline constexpr const char* kEnvGarbageRate = "THARSIS_GARBAGE_RATE";
inline constexpr const char* kEnvFaultSeed = "THARSIS_FAULT_SEED";
inline constexpr const char* kEnvTaskSeconds = "THARSIS_TASK_SECONDS";
inline constexpr double kMaxTaskSeconds = 3600;

// Fault settings from the environment: THARSIS_TASK_FAILURE_RATE,
// THARSIS_JOB_FAILURE_RATE, THARSIS_GARBAGE_RATE in [0, 1] (unset: 0);
// THARSIS_FAULT_SEED (default 1). Errors name the variable.
Result<HostFaults> host_faults_from_env(uint64_t& seed);
// THARSIS_TASK_SECONDS in [0, kMaxTaskSeconds] (unset: 0), the simulated time per task.
Result<double> task_seconds_from_env();

// The "NAME=value" entries that hand `faults` (rates only), `seed` and `task_seconds`
// to a task app process; host_faults_from_env and task_seconds_from_env read them back.
std::vector<std::string> task_app_environment(const HostFaults& faults, uint64_t seed, double task_seconds);
// The fault seed of one run of one result on a host: a pure function of the three, so a
// simulation is reproducible while every run (a re-run too) draws differently.
uint64_t run_fault_seed(uint64_t host_seed, std::string_view result_name, int run);

}  // namespace tharsis
