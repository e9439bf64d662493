// task_app: the app of clustered jobs (docs/reclustering.md). Reads the job's task list ("in", or
// argv[1]), runs each task, writes the per-task report ("out", or argv[2]); exit 0.
// Injected faults and the simulated time per task come from the environment
// (client/lib/task_runner.h): a job failure exits 1 without a report. A bad task list
// or environment exits 1 with the reason on stderr.
#include <fstream>
#include <iostream>
#include <sstream>

#include "client/lib/task_runner.h"

int main(int argc, char** argv) {
  const std::string input_path = argc > 1 ? argv[1] : "in";
  const std::string output_path = argc > 2 ? argv[2] : "out";
  uint64_t seed = 1;
  auto faults = tharsis::host_faults_from_env(seed);
  auto task_seconds = tharsis::task_seconds_from_env();
  if (!faults.ok() || !task_seconds.ok()) {
    std::cerr << "task_app: " << (faults.ok() ? task_seconds.error() : faults.error()) << "\n";
    return 1;
  }
  std::ifstream in(input_path);
  if (!in) {
    std::cerr << "task_app: cannot open input " << input_path << "\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  tharsis::HostBehaviour host(*faults, seed);
  auto run = tharsis::run_task_job(text.str(), host, *task_seconds);
  if (!run.ok()) {
    std::cerr << "task_app: " << run.error() << "\n";
    return 1;
  }
  if (run->crashed) {
    std::cerr << "task_app: injected job failure\n";
    return 1;
  }
  std::ofstream out(output_path, std::ios::binary | std::ios::trunc);
  out << run->report;
  out.close();
  if (!out) {
    std::cerr << "task_app: cannot write output " << output_path << "\n";
    return 1;
  }
  return 0;
}
