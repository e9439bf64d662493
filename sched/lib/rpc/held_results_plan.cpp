// Implementation of sched/lib/rpc/held_results_plan.h.
#include "sched/lib/rpc/held_results_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "sched/lib/result_acceptance.h"

namespace tharsis {

HeldResultsPlan plan_held_results(const HeldResultsInput& input) {
  HeldResultsPlan plan;
  std::map<std::string, const HostResultRow*> by_name;
  for (const auto& r : input.in_progress) by_name[r.name] = &r;
  std::set<std::string> held;
  for (size_t i = 0; i < input.held.size(); ++i) {
    const std::string& name = input.held[i];
    held.insert(name);
    const HostResultRow* result = nullptr;
    if (auto it = by_name.find(name); it != by_name.end()) {
      result = it->second;
    } else {
      if (i >= input.looked_up.size() || !input.looked_up[i] || input.looked_up[i]->hostid != input.host_id)
        continue;
      result = &*input.looked_up[i];
    }
    ResultAcceptanceView view{result->server_state, result->outcome, result->wu_canonical_resultid,
                              result->wu_error_mask, result->wu_assimilate_state};
    if (result_acceptance(view) == ResultAcceptance::Late) {
      // Timed out, its workunit still open: if the host is computing it, its late report
      // is still taken (BOINC: abort only if not started).
      plan.aborts_if_not_started.push_back(name);
    } else if (result->wu_error_mask != 0 || result->server_state == ServerState::Over) {
      plan.aborts.push_back(name);
    } else if (result->wu_canonical_resultid != 0) {
      plan.aborts_if_not_started.push_back(name);
    }
  }
  if (!input.have_other_results) return plan;
  for (const auto& result : input.in_progress) {
    if (held.count(result.name) || result.report_deadline <= input.now) continue;
    bool reported =
        std::find(input.reported.begin(), input.reported.end(), result.name) != input.reported.end();
    if (!reported) plan.lost.push_back(result);
  }
  return plan;
}

}  // namespace tharsis
