// transitioner: moves workunits through the back-end law (daemons/transitioner/).
#include "daemons/transitioner/lib/transitioner_pass.h"

int main(int argc, char** argv) {
  return tharsis::run_daemon(
      "transitioner", argc, argv,
      [](const tharsis::ProjectConfig& config,
         const tharsis::DaemonOptions&) -> tharsis::Result<std::unique_ptr<tharsis::DaemonWork>> {
        return std::unique_ptr<tharsis::DaemonWork>(new tharsis::TransitionerPass(config));
      });
}
