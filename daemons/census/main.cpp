// census: now and then counts results by state and the back-end queues into the census
// snapshot that the status pages show (daemons/census/lib/census_pass.h), every
// <census_interval> seconds of config.xml (default 60). It counts the whole project, so
// it runs as one instance: --mod and --threads are refused.
#include "daemons/census/lib/census_pass.h"

int main(int argc, char** argv) {
  return tharsis::run_daemon(
      "census", argc, argv,
      [](const tharsis::ProjectConfig& config,
         const tharsis::DaemonOptions& options) -> tharsis::Result<std::unique_ptr<tharsis::DaemonWork>> {
        if (options.shard.n > 1) {
          return tharsis::make_error(
              "census: --mod: expected none (the census counts the whole project; run "
              "one instance), found --mod " +
              std::to_string(options.shard.n));
        }
        if (options.threads > 1) {
          return tharsis::make_error(
              "census: --threads: expected 1 (one count of the whole project), found " +
              std::to_string(options.threads));
        }
        return std::unique_ptr<tharsis::DaemonWork>(new tharsis::CensusPass(config.census_interval));
      });
}
