// graph_scheduler: moves operand graphs along (daemons/graph_scheduler/lib/graph_scheduler_pass.h).
// Option --prefer_seconds S (default 60): how long a READY operand waits for the host that
// holds most of its inputs before any host may take it; --prefer_silent_seconds S (default
// 3600): a preferred host with no scheduler RPC for that long is not waited for.
#include <string>

#include "daemons/graph_scheduler/lib/graph_scheduler_pass.h"

int main(int argc, char** argv) {
  return tharsis::run_daemon(
      "graph_scheduler", argc, argv,
      [](const tharsis::ProjectConfig& config,
         const tharsis::DaemonOptions& options) -> tharsis::Result<std::unique_ptr<tharsis::DaemonWork>> {
        int64_t prefer = 60, silent = 3600;
        for (size_t i = 0; i + 1 < options.extra.size(); i += 2) {
          int64_t* target = options.extra[i] == "prefer_seconds"          ? &prefer
                            : options.extra[i] == "prefer_silent_seconds" ? &silent
                                                                          : nullptr;
          if (!target) continue;
          try {
            *target = std::stoll(options.extra[i + 1]);
          } catch (const std::exception&) {
            return tharsis::make_error("--" + options.extra[i] + ": expected a number of seconds, got '" +
                                       options.extra[i + 1] + "'");
          }
        }
        return std::unique_ptr<tharsis::DaemonWork>(new tharsis::GraphSchedulerPass(config, prefer, silent));
      },
      {"prefer_seconds", "prefer_silent_seconds"});
}
