// Implementation of client/lib/task_runner.h.
#include "client/lib/task_runner.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "client/lib/example_kernel.h"
#include "lib/recluster/task_io.h"

namespace tharsis {
namespace {

Result<double> number_from_env(const char* name, double high, const char* what) {
  const char* text = std::getenv(name);
  if (!text || !*text) return 0.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !(value >= 0 && value <= high)) {
    return make_error(std::string(name) + ": expected " + what + ", found '" + text + "'");
  }
  return value;
}

void simulate_compute(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// splitmix64's finaliser: spreads nearby inputs (run 1, run 2) over the whole range.
uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Result<TaskJobRun> run_task_job(const std::string& task_list, HostBehaviour& host, double task_seconds) {
  auto tasks = parse_task_list(task_list);
  if (!tasks.ok()) return make_error(tasks.error());
  std::vector<bool> failed;
  const JobFate fate = host.run_tasks(static_cast<int>(tasks->size()), failed);
  TaskJobRun run;
  if (fate == JobFate::JobFailure) {
    simulate_compute(task_seconds * static_cast<double>(tasks->size()));
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
    simulate_compute(task_seconds);
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
  for (auto [name, field] : {std::pair{kEnvTaskFailureRate, &HostFaults::task_failure_rate},
                             std::pair{kEnvJobFailureRate, &HostFaults::job_failure_rate},
                             std::pair{kEnvGarbageRate, &HostFaults::garbage_rate}}) {
    auto rate = number_from_env(name, 1, "a rate in [0, 1]");
    if (!rate.ok()) return make_error(rate.error());
    faults.*field = *rate;
  }
  seed = 1;
  if (const char* text = std::getenv(kEnvFaultSeed); text && *text) {
    char* end = nullptr;
    seed = std::strtoull(text, &end, 10);
    if (*end != '\0' || *text == '-')
      return make_error(std::string(kEnvFaultSeed) + ": expected an integer, found '" + text + "'");
  }
  return faults;
}

Result<double> task_seconds_from_env() {
  return number_from_env(kEnvTaskSeconds, kMaxTaskSeconds, "seconds in [0, 3600]");
}

std::vector<std::string> task_app_environment(const HostFaults& faults, uint64_t seed, double task_seconds) {
  // %.17g: the app reads back exactly the rate the host was given.
  auto number = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return std::string(text);
  };
  return {std::string(kEnvTaskFailureRate) + "=" + number(faults.task_failure_rate),
          std::string(kEnvJobFailureRate) + "=" + number(faults.job_failure_rate),
          std::string(kEnvGarbageRate) + "=" + number(faults.garbage_rate),
          std::string(kEnvFaultSeed) + "=" + std::to_string(seed),
          std::string(kEnvTaskSeconds) + "=" + number(task_seconds)};
}

uint64_t run_fault_seed(uint64_t host_seed, std::string_view result_name, int run) {
  uint64_t name_hash = 0xcbf29ce484222325ULL;  // FNV-1a: stable across builds, unlike std::hash
  for (unsigned char c : result_name) name_hash = (name_hash ^ c) * 0x100000001b3ULL;
  // Chained, not XORed side by side: host 1 run 2 must differ from host 2 run 1.
  return mix64(mix64(mix64(host_seed) ^ name_hash) ^ static_cast<uint64_t>(run));
}

}  // namespace tharsis
