// upgrade_db: upgrades a project's database schema in place to this build's version
// (tools/lib/upgrade_db.h); with --dry_run prints what it would do and changes nothing.
// Exit: 0 done (or nothing to do), 1 failed, 2 usage or configuration.
#include <boost/program_options.hpp>
#include <ctime>
#include <iostream>

#include "tools/lib/tool_main.h"
#include "tools/lib/upgrade_db.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("upgrade_db [--project_dir DIR] [--dry_run]");
  options.add_options()("dry_run", "print the statements an upgrade would run; change nothing");
  return run_db_tool("upgrade_db", options, argc, argv,
                     [](const ProjectConfig& config, Database& db, const po::variables_map& vm) {
                       UpgradeOptions upgrade{vm.count("dry_run") > 0};
                       auto outcome =
                           upgrade_project_database(config, db, upgrade, std::time(nullptr), std::cout);
                       if (!outcome.ok()) {
                         std::cerr << "upgrade_db: " << outcome.error() << "\n";
                         return 1;
                       }
                       return 0;
                     });
}
