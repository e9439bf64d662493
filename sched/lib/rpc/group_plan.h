// Pure decision of the grouped scheduler walk (grouped_rpc.h): which requests join a group.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "lib/protocol/scheduler_request.h"

namespace tharsis {

// At most this many requests in a group (a worker takes no more from its socket at once).
inline constexpr size_t kMaxGroupRequests = 16;

// Which of `requests` (nullopt: malformed) join a group, by index, in order: each
// well-formed one that names its host (hostid > 0), has a valid rpc_seqno, an
// authenticator of printable ASCII (1 to 254 bytes), and whose host no earlier member
// names; at most kMaxGroupRequests. Fewer than two: none (nothing to share). The rest are
// served alone: new hosts, refusals, a host's second request in flight.
std::vector<size_t> group_members(const std::vector<std::optional<SchedulerRequest>>& requests);

}  // namespace tharsis
