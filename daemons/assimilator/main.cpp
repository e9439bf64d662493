// assimilator: hands finished workunits to the project (default: the results store).
#include "daemons/assimilator/lib/assimilator_pass.h"

int main(int argc, char** argv) {
  return tharsis::run_daemon("assimilator", argc, argv,
                             [](const tharsis::ProjectConfig& config, const tharsis::DaemonOptions&)
                                 -> tharsis::Result<std::unique_ptr<tharsis::DaemonWork>> {
                               return std::unique_ptr<tharsis::DaemonWork>(new tharsis::AssimilatorPass(
                                   config, tharsis::results_store_handler(config)));
                             });
}
