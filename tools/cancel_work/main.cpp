// cancel_work: cancel workunits by name (BOINC's cancel_jobs). Hosts still running one of
// their results are told to abort it at their next scheduler RPC.
//   cancel_work --project_dir P --wu_name NAME [--wu_name NAME...]
#include <boost/program_options.hpp>
#include <ctime>
#include <iostream>

#include "tools/lib/cancel_work.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("cancel_work --project_dir P --wu_name NAME...");
  options.add_options()("wu_name", po::value<std::vector<std::string>>()->required(), "workunit to cancel");
  return run_db_tool(
      "cancel_work", options, argc, argv,
      [](const ProjectConfig&, Database& db, const po::variables_map& vm) {
        auto outcome = cancel_workunits(db, vm["wu_name"].as<std::vector<std::string>>(), std::time(nullptr));
        if (!outcome.ok()) {
          std::cerr << "cancel_work: " << outcome.error() << "\n";
          return 1;
        }
        std::cout << "cancelled " << outcome->cancelled << ", already cancelled "
                  << outcome->already_cancelled << ", already done " << outcome->already_done << "\n";
        return 0;
      });
}
