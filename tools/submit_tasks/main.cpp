// submit_tasks: hand plain tasks to the clusterer, which packs them k per job as the
// project's <recluster_policy> says (docs/reclustering.md):
//   submit_tasks --project_dir P --app NAME (--file TASKS | --count N [--iterations I] [--prefix S])
// TASKS: one "KEY PAYLOAD" per line. --count makes tasks S0..S(N-1) for the task app.
#include <boost/program_options.hpp>
#include <iostream>

#include "db/app_store.h"
#include "lib/text_file.h"
#include "tools/lib/submit_tasks.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("submit_tasks --project_dir P --app NAME (--file TASKS | --count N)");
  options.add_options()("app", po::value<std::string>()->required(), "app the tasks run with")(
      "file", po::value<std::string>(), "tasks file: one 'KEY PAYLOAD' per line")(
      "count", po::value<int64_t>(), "generate this many tasks for the task app")(
      "iterations", po::value<int64_t>()->default_value(1000), "hash iterations per generated task")(
      "prefix", po::value<std::string>()->default_value("task"), "key prefix of generated tasks");
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("submit_tasks", options, argc, argv, vm)) return *exit_code;
  if (vm.count("file") == vm.count("count")) {
    std::cerr << "submit_tasks: give exactly one of --file and --count\n";
    return 2;
  }
  auto config = load_tool_config("submit_tasks", vm);
  if (!config) return 2;
  std::vector<TaskSubmission> tasks;
  if (vm.count("file")) {
    auto text = read_text_file(vm["file"].as<std::string>());
    auto parsed =
        text.ok() ? parse_task_file(*text) : Result<std::vector<TaskSubmission>>(make_error(text.error()));
    if (!parsed.ok()) {
      std::cerr << "submit_tasks: " << parsed.error() << "\n";
      return 1;
    }
    tasks = std::move(*parsed);
  } else {
    if (vm["count"].as<int64_t>() < 1 || vm["iterations"].as<int64_t>() < 1) {
      std::cerr << "submit_tasks: --count and --iterations expect positive numbers\n";
      return 2;
    }
    tasks = generated_tasks(vm["prefix"].as<std::string>(), vm["count"].as<int64_t>(),
                            vm["iterations"].as<int64_t>());
  }
  try {
    auto db = Database::open(config->db);
    auto app = fetch_app_by_name(*db, vm["app"].as<std::string>());
    if (!app) {
      std::cerr << "submit_tasks: no app named '" << vm["app"].as<std::string>()
                << "' (add it with add_app)\n";
      return 1;
    }
    auto submitted = submit_cluster_tasks(*db, app->id, tasks);
    if (!submitted.ok()) {
      std::cerr << submitted.error() << "\n";
      return 1;
    }
    std::cout << "submitted " << *submitted << " tasks to app " << app->name << " (policy "
              << policy_name(config->recluster_policy) << ")\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "submit_tasks: " << e.what() << "\n";
    return 1;
  }
}
