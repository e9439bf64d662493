// tools/stop: stop the project's daemons cleanly (stop trigger file, then signals for any
// daemon that does not exit within the grace period).
#include <boost/program_options.hpp>
#include <iostream>

#include "lib/config/project_config.h"
#include "tools/lib/daemon_control.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("stop [--project_dir DIR] [--grace SECONDS]");
  options.add_options()("grace", po::value<double>()->default_value(30), "seconds to wait before signalling");
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("stop", options, argc, argv, vm)) return *exit_code;
  auto config = load_tool_config("stop", vm);
  if (!config) return 1;
  auto signalled = stop_daemons(*config, vm["grace"].as<double>());
  if (!signalled.ok()) {
    std::cerr << signalled.error() << "\n";
    return 1;
  }
  std::cout << "daemons stopped";
  if (!signalled->empty()) {
    std::cout << " (signalled:";
    for (const auto& name : *signalled) std::cout << " " << name;
    std::cout << ")";
  }
  std::cout << "\n";
  return 0;
}
