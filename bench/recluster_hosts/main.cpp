// recluster_hosts: the volunteers of bench/recluster_live.sh. Registers R simulated hosts
// (tools/lib/simulated_hosts.h: the scheduler's DB writes, no HTTP), submits N tasks of
// an app, then runs the hosts in real time with the injected task and job failure rates
// until every task is done, and prints the makespan (submission to the last task done)
// with what the hosts saw, as one line of key=value pairs.
//   recluster_hosts --project_dir P --app NAME --tasks N --hosts R --task_seconds T
//                   [--iterations I] [--task_failure_rate A] [--job_failure_rate B]
//                   [--seed S] [--timeout SECONDS]
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <iostream>
#include <thread>

#include "db/app_store.h"
#include "db/cluster_store.h"
#include "tools/lib/simulated_hosts.h"
#include "tools/lib/submit_tasks.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

namespace {

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description options(
      "recluster_hosts --project_dir P --app NAME --tasks N --hosts R --task_seconds T");
  SimulatedHostsConfig hosts;
  int64_t tasks = 0, iterations = 10;
  double timeout = 1800;
  options.add_options()("app", po::value<std::string>()->required(), "app of the tasks")(
      "tasks", po::value(&tasks)->required(), "tasks to submit (n)")(
      "hosts", po::value(&hosts.hosts)->required(), "simulated hosts (r)")(
      "task_seconds", po::value(&hosts.task_seconds)->required(), "compute time of one task (phi)")(
      "iterations", po::value(&iterations)->default_value(10), "hash iterations per task (real work)")(
      "task_failure_rate", po::value(&hosts.faults.task_failure_rate)->default_value(0), "alpha")(
      "job_failure_rate", po::value(&hosts.faults.job_failure_rate)->default_value(0), "beta")(
      "seed", po::value(&hosts.seed)->default_value(1), "fault seed")(
      "timeout", po::value(&timeout)->default_value(1800), "give up after this many seconds");
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("recluster_hosts", options, argc, argv, vm)) return *exit_code;
  auto config = load_tool_config("recluster_hosts", vm);
  if (!config) return 2;
  try {
    auto db = Database::open(config->db);
    auto app = fetch_app_by_name(*db, vm["app"].as<std::string>());
    if (!app) {
      std::cerr << "recluster_hosts: no app named '" << vm["app"].as<std::string>() << "'\n";
      return 1;
    }
    // Hosts first, so the clusterer's first look already counts r of them.
    SimulatedHosts sim(*db, *config, hosts, static_cast<int64_t>(wall_seconds()));
    auto submitted = submit_cluster_tasks(*db, app->id, generated_tasks("task", tasks, iterations));
    if (!submitted.ok()) {
      std::cerr << submitted.error() << "\n";
      return 1;
    }
    const double start = wall_seconds();
    double now = start;
    while (count_tasks_left(*db, app->id) > 0) {
      now = wall_seconds();
      if (now - start > timeout) {
        std::cerr << "recluster_hosts: timed out after " << timeout << " s with "
                  << count_tasks_left(*db, app->id) << " tasks left\n";
        return 1;
      }
      sim.step(now);
      const double next = std::min(sim.next_due(), wall_seconds() + 0.05);
      std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, next - wall_seconds())));
    }
    now = wall_seconds();
    std::cout << "makespan_s=" << now - start << " jobs=" << sim.jobs_reported()
              << " crashed=" << sim.jobs_crashed() << " task_runs=" << sim.tasks_run()
              << " task_failures=" << sim.tasks_failed() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recluster_hosts: " << e.what() << "\n";
    return 1;
  }
}
