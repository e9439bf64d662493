// tools/start: launch the project's daemons (config.xml <daemons>) that are not running.
// `start --cron` is the crontab form: same action, silent unless something was restarted
// or failed, so cron mails only news.
#include <boost/program_options.hpp>
#include <iostream>

#include "lib/project_config.h"
#include "tools/lib/daemon_control.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("start [--project_dir DIR] [--cron]");
  options.add_options()("help", "show this help")(
      "project_dir", po::value<std::string>()->default_value("."), "project directory (holds config.xml)")(
      "cron", "restart daemons that died; print only when one was restarted");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, options), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "start: " << e.what() << "\n" << options;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  auto config = load_project_config(vm["project_dir"].as<std::string>() + "/config.xml");
  if (!config.ok()) {
    std::cerr << "start: " << config.error() << "\n";
    return 1;
  }
  auto started = start_daemons(*config);
  if (!started.ok()) {
    std::cerr << started.error() << "\n";
    return 1;
  }
  bool cron = vm.count("cron") > 0;
  if (cron && !started->empty()) std::cout << "start --cron: restarted";
  else if (!cron) std::cout << (started->empty() ? "all daemons already running" : "started");
  for (const auto& name : *started) std::cout << " " << name;
  if (!cron || !started->empty()) std::cout << "\n";
  return 0;
}
