// tools/start: launch the project's daemons (config.xml <daemons>) that are not running.
// `start --cron` is the crontab form: same action, silent unless something was restarted
// or failed, so cron mails only news.
#include <boost/program_options.hpp>
#include <iostream>

#include "lib/config/project_config.h"
#include "tools/lib/daemon_control.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("start [--project_dir DIR] [--cron]");
  options.add_options()("cron", "restart daemons that died; print only when one was restarted");
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("start", options, argc, argv, vm)) return *exit_code;
  auto config = load_tool_config("start", vm);
  if (!config) return 1;
  auto started = start_daemons(*config);
  if (!started.ok()) {
    std::cerr << started.error() << "\n";
    return 1;
  }
  bool cron = vm.count("cron") > 0;
  if (cron && !started->empty())
    std::cout << "start --cron: restarted";
  else if (!cron)
    std::cout << (started->empty() ? "all daemons already running" : "started");
  for (const auto& name : *started) std::cout << " " << name;
  if (!cron || !started->empty()) std::cout << "\n";
  return 0;
}
