// The client's progress and summary lines (--summary), for a person watching a run or a
// demo script: one progress line per second on stderr, then one final summary line. With
// a watched project (client/lib/project_progress.h) they also show its part; otherwise
// only what the client itself did.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "client/lib/host_client.h"
#include "client/lib/project_progress.h"

namespace tharsis {

struct RunSnapshot {
  double elapsed_seconds = 0;
  int hosts = 0, hosts_vanished = 0;
  ClientCounters client;                  // summed over the hosts
  std::optional<ProjectReading> project;  // the watched project's part, if any
};

// "[  12s] workunits 150/200 done, 3 errored | results success 310, client_error 12, ... | hosts 7/8"
std::string progress_line(const RunSnapshot& snapshot);
// "summary: workunits 200 (196 canonical, 4 errored, 200 assimilated, 200 files deleted); server results:
//  success 412, ...; client: 430 results, 398 uploaded, 20 crashes (5 gave up), ..."
std::string summary_line(const RunSnapshot& snapshot);

}  // namespace tharsis
