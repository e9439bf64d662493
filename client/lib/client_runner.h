// The client's main loop over one host (normal mode) or many (simulation mode): steps
// every host in turn, idles a few milliseconds only when none had anything to do, and
// stops on SIGTERM/SIGINT, after max_seconds, or (until_settled) once the watched
// project's every workunit is finished, assimilated and its files deleted (the database
// being away only delays that check). With `summary` it prints a progress line each
// second and a summary line at the end (stderr).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "client/lib/host_client.h"
#include "lib/project_config.h"

namespace tharsis {

struct RunOptions {
  bool summary = false;
  double max_seconds = 0;                        // 0: no limit
  std::optional<ProjectConfig> watched_project;  // read-only DB access for progress
  bool until_settled = false;                    // needs watched_project
};

// Returns the exit code: 0 (stopped, time up, or settled); 1 on a watched-database error
// other than a lost or refused connection (those are waited out: client/lib/project_watch.h).
int run_hosts(std::vector<std::unique_ptr<HostClient>>& hosts, const RunOptions& options);

}  // namespace tharsis
