// Implementation of tests/support/daemon_rounds.h.
#include "tests/support/daemon_rounds.h"

#include "daemons/assimilator/lib/assimilator_pass.h"
#include "daemons/file_deleter/lib/file_deleter_pass.h"
#include "daemons/transitioner/lib/transitioner_pass.h"
#include "daemons/validator/lib/validator_pass.h"

namespace tharsis::testing {

bool run_daemons_until_idle(Database& db, const ProjectConfig& config, int64_t now,
                            const std::vector<DaemonWork*>& extra) {
  DaemonOptions options;
  options.batch = 100;
  DaemonContext context{config, options, Shard{}, 100};
  TransitionerPass transitioner(config);
  ValidatorPass validator(config);
  AssimilatorPass assimilator(config, results_store_handler(config));
  FileDeleterPass file_deleter(config);
  std::vector<DaemonWork*> passes = extra;
  passes.insert(passes.end(), {&transitioner, &validator, &assimilator, &file_deleter});
  for (int round = 0; round < 50; ++round) {
    int done = 0;
    for (DaemonWork* pass : passes) done += pass->do_pass(db, context, now);
    if (done == 0) return true;
  }
  return false;
}

}  // namespace tharsis::testing
