// tools/start: launch the project's daemons (config.xml <daemons>) that are not running.
// `start --cron` is the crontab form: same action, silent unless something was restarted
// or failed, so cron mails only news. A daemon that exits at once is named on stderr with
// the last line of its log, and start exits 1.
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
  auto outcome = start_daemons(*config);
  if (!outcome.ok()) {
    std::cerr << outcome.error() << "\n";
    return 1;
  }
  const auto& started = outcome->started;
  bool cron = vm.count("cron") > 0;
  if (cron && !started.empty())
    std::cout << "start --cron: restarted";
  else if (!cron)
    std::cout << (started.empty() ? (outcome->failed.empty() ? "all daemons already running" : "started none")
                                  : "started");
  for (const auto& name : started) std::cout << " " << name;
  if (!cron || !started.empty()) std::cout << "\n";
  for (const auto& failure : outcome->failed) {
    std::cerr << "start: " << failure.instance << " exited at once: "
              << (failure.last_log_line.empty() ? "(its log is empty)" : failure.last_log_line) << " (log "
              << failure.log_file << ")\n";
  }
  return outcome->failed.empty() ? 0 : 1;
}
