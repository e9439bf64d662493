// file_deleter: removes input and output files once the back-end law allows it.
#include "daemons/file_deleter/lib/file_deleter_pass.h"

int main(int argc, char** argv) {
  return tharsis::run_daemon(
      "file_deleter", argc, argv,
      [](const tharsis::ProjectConfig& config,
         const tharsis::DaemonOptions&) -> tharsis::Result<std::unique_ptr<tharsis::DaemonWork>> {
        return std::unique_ptr<tharsis::DaemonWork>(new tharsis::FileDeleterPass(config));
      });
}
