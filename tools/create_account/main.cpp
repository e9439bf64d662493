// create_account: make a volunteer account and print its authenticator, the key the
// volunteer gives the BOINC client (boinccmd --project_attach MASTER_URL AUTHENTICATOR).
//   create_account --project_dir P --name NAME --email ADDRESS
// Prints the authenticator alone on stdout, so scripts can capture it.
#include <boost/program_options.hpp>
#include <ctime>
#include <iostream>

#include "tools/lib/accounts.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("create_account --project_dir P --name NAME --email ADDRESS");
  options.add_options()("name", po::value<std::string>()->required(), "volunteer's name")(
      "email", po::value<std::string>()->required(), "volunteer's email address");
  return run_db_tool("create_account", options, argc, argv,
                     [](const ProjectConfig&, Database& db, const po::variables_map& vm) {
                       auto user = create_account(db, vm["name"].as<std::string>(),
                                                  vm["email"].as<std::string>(), std::time(nullptr));
                       if (!user.ok()) {
                         std::cerr << "create_account: " << user.error() << "\n";
                         return 1;
                       }
                       std::cerr << "account " << user->id << " (" << user->name << ")\n";
                       std::cout << user->authenticator << "\n";
                       return 0;
                     });
}
