// validator: finds canonical results by comparing redundant results (daemons/validator/).
#include "daemons/validator/lib/validator_pass.h"

int main(int argc, char** argv) {
  return tharsis::run_daemon(
      "validator", argc, argv,
      [](const tharsis::ProjectConfig& config,
         const tharsis::DaemonOptions&) -> tharsis::Result<std::unique_ptr<tharsis::DaemonWork>> {
        return std::unique_ptr<tharsis::DaemonWork>(new tharsis::ValidatorPass(config));
      });
}
