// clusterer: forms clustered jobs of k tasks from the waiting cluster tasks, k as the
// project's <recluster_policy> decides (daemons/clusterer/).
//   --delay_bound SECONDS  report deadline of each job (default 86400)
#include <cstdlib>

#include "daemons/clusterer/lib/clusterer_pass.h"

int main(int argc, char** argv) {
  return tharsis::run_daemon(
      "clusterer", argc, argv,
      [](const tharsis::ProjectConfig& config,
         const tharsis::DaemonOptions& options) -> tharsis::Result<std::unique_ptr<tharsis::DaemonWork>> {
        tharsis::ClusterJobParams params;
        for (size_t i = 0; i + 1 < options.extra.size(); i += 2) {
          if (options.extra[i] == "delay_bound") {
            char* end = nullptr;
            const long value = std::strtol(options.extra[i + 1].c_str(), &end, 10);
            if (*end != '\0' || value < 1) {
              return tharsis::make_error(
                  "clusterer: --delay_bound expected a positive number of seconds, found '" +
                  options.extra[i + 1] + "'");
            }
            params.delay_bound = static_cast<int>(value);
          }
        }
        try {
          return std::unique_ptr<tharsis::DaemonWork>(new tharsis::ClustererPass(config, params));
        } catch (const std::exception& e) {
          return tharsis::make_error(e.what());
        }
      },
      {"delay_bound"});
}
