// tools/check: checks the back-end law's invariants and the file rules on a live project
// database; prints each violation; exits 1 if there is any (0 when clean, 2 on usage).
#include <boost/program_options.hpp>
#include <ctime>
#include <iostream>

#include "db/schema_migrations.h"
#include "lib/config/project_config.h"
#include "tools/lib/checker.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("check [--project_dir DIR] [--settled] [--hash_results]");
  options.add_options()(
      "settled",
      "also require every workunit finished: canonical or error, assimilated, files deleted, nothing left in "
      "upload/ that belongs to no live result; hashes the assimilated outputs")(
      "hash_results",
      "hash each assimilated output in results/ and compare it with the canonical result's report");
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("check", options, argc, argv, vm)) return *exit_code;
  auto config = load_tool_config("check", vm);
  if (!config) return 2;
  try {
    auto db = Database::open(config->db);
    // An older schema is a violation too: the daemons refuse to run until upgrade_db has
    // run. The checks themselves read today's columns, so they wait for the upgrade as well.
    if (std::string problem = schema_version_problem(*db, config->project_dir); !problem.empty()) {
      std::cout << "schema: " << problem << "\nchecked nothing else: 1 violation(s)\n";
      return 1;
    }
    CheckOptions check_options{vm.count("settled") > 0, vm.count("hash_results") > 0};
    CheckReport report = check_project(*db, *config, std::time(nullptr), check_options);
    for (const auto& line : report.violations) std::cout << line << "\n";
    std::cout << "checked " << report.workunits << " workunits, " << report.results
              << " results: " << report.violations.size() << " violation(s)\n";
    if (report.cluster.tasks > 0) {
      const ClusterCounts& c = report.cluster;
      std::cout << "cluster tasks " << c.tasks << ": waiting " << c.waiting << ", in jobs " << c.in_jobs
                << ", done " << c.done << "; jobs live " << c.live_jobs << " (" << c.live_job_slots
                << " slots), settled " << c.settled_jobs << "\n";
    }
    return report.violations.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "check: " << e.what() << "\n";
    return 2;
  }
}
