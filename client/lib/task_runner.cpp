// Implementation of client/lib/task_runner.h.
#include "client/lib/task_runner.h"

#include <charconv>
#include <cstdlib>

#include "client/lib/example_kernel.h"
#include "lib/recluster/task_io.h"

namespace tharsis {
namespace {

Result<double> rate_from_env(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return 0.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !(value >= 0 && value <= 1)) {
    return make_error(std::string(name) + ": expected a rate in [0, 1], found '" + text + "'");
  }
  return value;
}

}  // namespace

Result<TaskJobRun> run_task_job(const std::string& task_list, HostBehaviour& host) {
  auto tasks = parse_task_list(task_list);
  if (!tasks.ok()) return make_error(tasks.error());
  std::vector<bool> failed;
  const JobFate fate = host.run_tasks(static_cast<int>(tasks->size()), failed);
  TaskJobRun run;
  if (fate == JobFate::JobFailure) {
    run.crashed = true;
    run.failed_tasks = static_cast<int>(tasks->size());
    return run;
  }
  std::vector<TaskReport> reports;
  for (size_t i = 0; i < tasks->size(); ++i) {
    const TaskSpec& t = (*tasks)[i];
    const size_t space = t.payload.find(' ');
    int64_t iterations = 0;
    const char* last = t.payload.data() + (space == std::string::npos ? t.payload.size() : space);
    auto [ptr, ec] = std::from_chars(t.payload.data(), last, iterations);
    if (ec != std::errc() || ptr != last || iterations < 1 || iterations > 10'000'000 ||
        space == std::string::npos) {
      return make_error("task " + std::to_string(t.id) +
                        ": expected payload '<iterations 1..10^7> <seed>', found '" +
                        t.payload.substr(0, 60) + "'");
    }
    if (failed[i]) {
      reports.push_back(TaskReport{t.id, false, "injected task failure"});
      ++run.failed_tasks;
      continue;
    }
    std::string output = hash_chain_hex(t.payload.substr(space + 1), iterations);
    if (fate == JobFate::Garbage) output = hash_chain_hex(output, 1);
    reports.push_back(TaskReport{t.id, true, output});
  }
  run.report = render_task_report(reports);
  return run;
}

Result<HostFaults> host_faults_from_env(uint64_t& seed) {
  HostFaults faults;
  for (auto [name, field] : {std::pair{"THARSIS_TASK_FAILURE_RATE", &HostFaults::task_failure_rate},
                             std::pair{"THARSIS_JOB_FAILURE_RATE", &HostFaults::job_failure_rate},
                             std::pair{"THARSIS_GARBAGE_RATE", &HostFaults::garbage_rate}}) {
    auto rate = rate_from_env(name);
    if (!rate.ok()) return make_error(rate.error());
    faults.*field = *rate;
  }
  seed = 1;
  if (const char* text = std::getenv("THARSIS_FAULT_SEED"); text && *text) {
    char* end = nullptr;
    seed = std::strtoull(text, &end, 10);
    if (*end != '\0')
      return make_error(std::string("THARSIS_FAULT_SEED: expected an integer, found '") + text + "'");
  }
  return faults;
}

}  // namespace tharsis
