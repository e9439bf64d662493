// tharsis-sim: tharsis-client's simulation of volunteer hosts (client/lib/client_program.h,
// every option of tharsis-client) that also watches the project it computes for, for
// tests, demos and benchmarks run on the project's own machine:
//   tharsis-sim --data_dir D --project_url URL --host "auth=K1,ncpus=2" --host ...
//       --project_dir P [--summary] [--until_settled]
// --project_dir names the project whose database (read-only) the summary lines show and
// --until_settled waits for: exit 0 once every workunit is finished and cleaned up.
#include <iostream>
#include <memory>

#include "client/lib/client_program.h"
#include "lib/config/project_config.h"
#include "tools/lib/project_watch.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  std::unique_ptr<ProjectWatch> watch;
  ClientProgramHooks hooks;
  hooks.add_options = [](po::options_description& options) {
    options.add_options()("project_dir", po::value<std::string>(),
                          "project directory (its config.xml names the database to watch)")(
        "until_settled", "exit when every workunit of --project_dir is finished and cleaned up");
  };
  hooks.configure = [&watch](const po::variables_map& vm, RunOptions& run) -> std::optional<int> {
    run.until_settled = vm.count("until_settled") > 0;
    if (!vm.count("project_dir")) {
      if (!run.until_settled) return std::nullopt;
      std::cerr << "tharsis-sim: --until_settled needs --project_dir\n";
      return 2;
    }
    auto config = load_project_config(vm["project_dir"].as<std::string>() + "/config.xml");
    if (!config.ok()) {
      std::cerr << "tharsis-sim: " << config.error() << "\n";
      return 2;
    }
    watch = std::make_unique<ProjectWatch>(config->db);
    run.project = watch.get();
    return std::nullopt;
  };
  return run_client_program("tharsis-sim", argc, argv, hooks);
}
