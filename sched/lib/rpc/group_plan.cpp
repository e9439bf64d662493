// Implementation of sched/lib/rpc/group_plan.h.
#include "sched/lib/rpc/group_plan.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "sched/lib/rpc/authenticate_plan.h"

namespace tharsis {
namespace {

// Text that goes into the group's JSON list as it is, and that no account can fail to match
// for a reason of bytes alone (an authenticator is hex; anything else is refused anyway).
bool plain_authenticator(const std::string& text) {
  return !text.empty() && text.size() <= 254 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

}  // namespace

std::vector<size_t> group_members(const std::vector<std::optional<SchedulerRequest>>& requests) {
  std::vector<size_t> members;
  std::set<int64_t> hosts;
  for (size_t i = 0; i < requests.size() && members.size() < kMaxGroupRequests; ++i) {
    const auto& req = requests[i];
    if (!req || req->hostid <= 0 || seqno_refusal(req->rpc_seqno) || !plain_authenticator(req->authenticator))
      continue;
    if (hosts.insert(req->hostid).second) members.push_back(i);
  }
  if (members.size() < 2) members.clear();
  return members;
}

}  // namespace tharsis
