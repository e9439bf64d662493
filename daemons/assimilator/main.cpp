// assimilator: hands finished workunits to the project (the results store), and settles
// the tasks of clustered jobs (cluster_settle.h).
#include "daemons/assimilator/lib/assimilator_pass.h"
#include "daemons/assimilator/lib/cluster_settle.h"

int main(int argc, char** argv) {
  return tharsis::run_daemon(
      "assimilator", argc, argv,
      [](const tharsis::ProjectConfig& config,
         const tharsis::DaemonOptions&) -> tharsis::Result<std::unique_ptr<tharsis::DaemonWork>> {
        return std::unique_ptr<tharsis::DaemonWork>(new tharsis::AssimilatorPass(
            config, tharsis::cluster_settling_handler(config, tharsis::results_store_handler(config))));
      });
}
