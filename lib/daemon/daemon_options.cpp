// Implementation of lib/daemon/daemon_options.h.
#include "lib/daemon/daemon_options.h"

#include <boost/program_options.hpp>
#include <sstream>

namespace tharsis {

namespace po = boost::program_options;

Result<DaemonOptions> parse_daemon_options(const std::string& program, int argc, const char* const* argv,
                                           const std::vector<std::string>& extra_options) {
  DaemonOptions o;
  std::string log_level = "info";
  po::options_description description(program + " options");
  description.add_options()("help", "show this help")(
      "project_dir", po::value(&o.project_dir)->default_value("."), "project directory (config.xml)")(
      "one_pass", "pass until nothing is left, then exit")(
      "sleep", po::value(&o.sleep_seconds)->default_value(5), "seconds to pause when idle")(
      "mod", po::value(&o.shard.n)->default_value(1), "number of shards")(
      "mod_id", po::value(&o.shard.id)->default_value(0), "this instance's shard, 0..mod-1")(
      "batch", po::value(&o.batch)->default_value(DaemonOptions{}.batch), "rows per pass")(
      "units_per_commit", po::value(&o.units_per_commit)->default_value(50), "units of work per transaction")(
      "threads", po::value(&o.threads)->default_value(1), "workers, each its own connection and rows")(
      "log_level", po::value(&log_level)->default_value("info"), "debug|info|warning|error")(
      "db_node", po::value(&o.db_node), "database node 1..N of config.xml's <db_nodes>");
  std::vector<std::string> extra_values(extra_options.size());
  for (size_t i = 0; i < extra_options.size(); ++i) {
    description.add_options()(extra_options[i].c_str(), po::value(&extra_values[i]), "");
  }
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, description), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    return make_error(program + ": " + e.what());
  }
  std::ostringstream help;
  help << description;
  o.help_text = help.str();
  o.help = vm.count("help") > 0;
  o.one_pass = vm.count("one_pass") > 0;
  if (o.shard.n < 1)
    return make_error(program + ": --mod expected a number >= 1, found " + std::to_string(o.shard.n));
  if (o.shard.id < 0 || o.shard.id >= o.shard.n) {
    return make_error(program + ": --mod_id expected 0.." + std::to_string(o.shard.n - 1) + ", found " +
                      std::to_string(o.shard.id));
  }
  if (o.sleep_seconds < 0 || o.sleep_seconds > 86400) {
    return make_error(program + ": --sleep expected 0..86400 seconds, found " +
                      std::to_string(o.sleep_seconds));
  }
  if (o.batch < 1 || o.batch > 100000) {
    return make_error(program + ": --batch expected 1..100000, found " + std::to_string(o.batch));
  }
  if (o.units_per_commit < 1 || o.units_per_commit > 1000) {
    return make_error(program + ": --units_per_commit expected 1..1000, found " +
                      std::to_string(o.units_per_commit));
  }
  if (o.threads < 1 || o.threads > kMaxDaemonThreads) {
    return make_error(program + ": --threads expected 1.." + std::to_string(kMaxDaemonThreads) + ", found " +
                      std::to_string(o.threads));
  }
  if (vm.count("db_node") && o.db_node < 1) {
    return make_error(program + ": --db_node expected a node number >= 1, found " +
                      std::to_string(o.db_node));
  }
  if (!parse_log_level(log_level, o.log_level)) {
    return make_error(program + ": --log_level expected debug, info, warning or error, found '" + log_level +
                      "'");
  }
  for (size_t i = 0; i < extra_options.size(); ++i) {
    if (vm.count(extra_options[i])) {
      o.extra.push_back(extra_options[i]);
      o.extra.push_back(extra_values[i]);
    }
  }
  return o;
}

}  // namespace tharsis
