// grant_submit: who may submit work remotely (docs/remote_submission.md#permissions).
//   grant_submit --project_dir D (--user ID | --email E) (--all | --app NAME...) [--max_jobs_in_progress N]
//   grant_submit --project_dir D (--user ID | --email E) --revoke [--all | --app NAME...]
#include <iostream>

#include "tools/lib/submit_grants.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("grant_submit (--user ID | --email E) (--all | --app NAME... | --revoke)");
  GrantChange change;
  options.add_options()("user", po::value(&change.user_id), "account id")(
      "email", po::value(&change.email), "account email address")("all", "may submit to every app")(
      "app", po::value(&change.apps)->composing(), "may submit to this app (repeatable)")(
      "max_jobs_in_progress", po::value(&change.max_jobs_in_progress), "limit, 0 = none")(
      "revoke", "remove the grant (or only --all / the --app ones)");
  return run_db_tool("grant_submit", options, argc, argv,
                     [&](const ProjectConfig&, Database& db, const po::variables_map& vm) {
                       change.all_apps = vm.count("all") > 0;
                       change.revoke = vm.count("revoke") > 0;
                       if ((change.user_id == 0) == change.email.empty()) {
                         std::cerr << "grant_submit: give exactly one of --user and --email\n";
                         return 2;
                       }
                       auto result = change_submit_grant(db, change);
                       if (!result.ok()) {
                         std::cerr << "grant_submit: " << result.error() << "\n";
                         return 1;
                       }
                       std::cout << *result << "\n";
                       return 0;
                     });
}
