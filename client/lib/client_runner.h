// The client's main loop over one host (normal mode) or many (simulation mode): steps
// every host in turn, idles a few milliseconds only when none had anything to do, and
// stops on SIGTERM/SIGINT, after max_seconds, or (until_settled) once the watched
// project says it has settled (a project that cannot be read only delays that check).
// With `summary` it prints a progress line each second and a summary line at the end
// (stderr).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "client/lib/host_client.h"
#include "client/lib/project_progress.h"

namespace tharsis {

struct RunOptions {
  bool summary = false;
  double max_seconds = 0;                    // 0: no limit
  ProjectProgressSource* project = nullptr;  // the watched project, if any (not owned)
  bool until_settled = false;                // needs project
};

// Returns the exit code: 0 (stopped, time up, or settled); 1 when the watched project
// throws (an error its source does not wait out).
int run_hosts(std::vector<std::unique_ptr<HostClient>>& hosts, const RunOptions& options);

}  // namespace tharsis
