// Pure decision of the scheduler RPC's held results step (held_results_step.h): of the
// results a host says it still has (<other_results>) and those the server has in progress
// at it, which the host must abort and which it lost and gets again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/send_store.h"

namespace tharsis {

struct HeldResultsInput {
  int64_t host_id = 0;
  int64_t now = 0;
  bool have_other_results = false;         // the request has <other_results> (even empty)
  std::vector<std::string> held;           // <other_results>' names, in request order
  std::vector<std::string> reported;       // the names the request reports
  std::vector<HostResultRow> in_progress;  // IN_PROGRESS at the host, as stored
  // looked_up[i]: the stored result named held[i] when it is not among in_progress (read
  // by name: over, unknown or another host's); nullopt when in progress, or unknown.
  std::vector<std::optional<HostResultRow>> looked_up;
};

struct HeldResultsPlan {
  std::vector<std::string> aborts;                 // dead: abort at once
  std::vector<std::string> aborts_if_not_started;  // of no more use unless already running
  std::vector<HostResultRow> lost;                 // in progress, not held, not reported: resend
};

// Aborts: a result whose workunit failed, or that is over, at once; one that timed out
// while its workunit is still open (result_acceptance.h: late) only if not started, since
// its late report may still help its workunit; one whose workunit has its canonical
// result only if not started. Another host's or an unknown result is left alone. Lost
// (only when the request lists what it holds): in progress at the host, not held, not
// reported, and still before its deadline.
HeldResultsPlan plan_held_results(const HeldResultsInput& input);

}  // namespace tharsis
