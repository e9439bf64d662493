// tools/stop: stop the project's daemons cleanly (stop trigger file, then signals for any
// daemon that does not exit within the grace period).
#include <boost/program_options.hpp>
#include <iostream>

#include "lib/project_config.h"
#include "tools/lib/daemon_control.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("stop [--project_dir DIR] [--grace SECONDS]");
  options.add_options()("help", "show this help")(
      "project_dir", po::value<std::string>()->default_value("."), "project directory (holds config.xml)")(
      "grace", po::value<double>()->default_value(30), "seconds to wait before signalling");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, options), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "stop: " << e.what() << "\n" << options;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  auto config = load_project_config(vm["project_dir"].as<std::string>() + "/config.xml");
  if (!config.ok()) {
    std::cerr << "stop: " << config.error() << "\n";
    return 1;
  }
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
