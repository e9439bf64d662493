// The graph scheduler's rules; see graph_scheduler_rules.h for the contract.
#include "daemons/graph_scheduler/graph_scheduler_rules.h"

#include <algorithm>
#include <deque>

#include "lib/operand/tensor_graph.h"

namespace tharsis {

bool is_uploaded_chunk(const OperandRow& operand) {
  return operand.workunitid == 0 && operand::is_uploaded_chunk_name(operand.output_file);
}

bool is_final(OperandState state) {
  return state == OperandState::Freed || state == OperandState::Fatal || state == OperandState::Cancelled;
}

bool has_finished(OperandState state) {
  return state == OperandState::Finished || state == OperandState::Freed;
}

bool may_leave_copies(GraphState final_state) {
  return final_state == GraphState::Failed || final_state == GraphState::Cancelled;
}

std::vector<const OperandRow*> producers_of_leftover_copies(GraphState final_state,
                                                            const std::vector<OperandRow>& operands) {
  std::vector<const OperandRow*> producers;
  if (!may_leave_copies(final_state)) return producers;
  for (const auto& operand : operands) {
    if (has_finished(operand.state) && !operand.output_file.empty() && !is_uploaded_chunk(operand))
      producers.push_back(&operand);
  }
  return producers;
}

OperandState state_after_job(OperandState current, const WorkunitRow& wu) {
  if (current == OperandState::Cancelling || (wu.error_mask & kWuErrorCancelled) != 0) {
    return OperandState::Cancelled;
  }
  if (wu.canonical_resultid != 0 && wu.error_mask == 0) return OperandState::Finished;
  return OperandState::Fatal;
}

bool job_has_ended(const OperandRow& operand, const WorkunitRow& wu, const std::vector<ResultRow>& results) {
  if (wu.assimilate_state != AssimilateState::Done) return false;
  if (operand.state == OperandState::Cancelling) {
    return std::none_of(results.begin(), results.end(),
                        [](const ResultRow& r) { return r.server_state == ServerState::InProgress; });
  }
  return operand.state == OperandState::Ready || operand.state == OperandState::Running;
}

bool output_may_be_freed(const OperandRow& operand, const std::vector<OperandRow>& successors) {
  return operand.state == OperandState::Finished &&
         std::all_of(successors.begin(), successors.end(),
                     [](const OperandRow& successor) { return has_finished(successor.state); });
}

OperandState state_on_cancel(OperandState current) {
  switch (current) {
    case OperandState::Unscheduled:
      return OperandState::Cancelled;
    case OperandState::Ready:
    case OperandState::Running:
      return OperandState::Cancelling;
    case OperandState::Finished:
      return OperandState::Freed;
    default:
      return current;
  }
}

bool cancel_marks_workunit(OperandState current) {
  return current == OperandState::Unscheduled || current == OperandState::Ready ||
         current == OperandState::Running;
}

ReservationVerdict reservation_verdict(const PreferredHostView& host, int default_daily_quota,
                                       int64_t silent_seconds, int64_t now) {
  if (!host.exists) return ReservationVerdict::HostGone;
  // The scheduler's rule (sched/lib/work_selection.cpp): nothing is sent once the count of
  // today's results reaches the quota; a count of an earlier day starts again at 0.
  const int quota = host.max_results_day > 0 ? host.max_results_day : default_daily_quota;
  const int sent_today = host.nresults_day == static_cast<int>(now / 86400) ? host.nresults_today : 0;
  if (quota > 0 && sent_today >= quota) return ReservationVerdict::QuotaSpent;
  if (now - host.rpc_time > silent_seconds) return ReservationVerdict::HostSilent;
  return ReservationVerdict::Keep;
}

int64_t preferred_host(const std::vector<InputLocation>& inputs) {
  std::map<int64_t, int64_t> bytes_by_host;
  for (const auto& input : inputs) {
    if (input.host_id != 0) bytes_by_host[input.host_id] += input.nbytes;
  }
  int64_t best = 0, best_bytes = -1;
  for (const auto& [host, bytes] : bytes_by_host) {  // ascending host id: ties keep the lower
    if (bytes > best_bytes) {
      best = host;
      best_bytes = bytes;
    }
  }
  return best;
}

std::optional<GraphState> graph_state_after(GraphState current,
                                            const std::map<OperandState, int64_t>& counts) {
  auto count = [&](OperandState s) {
    auto it = counts.find(s);
    return it == counts.end() ? int64_t{0} : it->second;
  };
  int64_t total = 0;
  for (const auto& [state, n] : counts) total += n;
  const int64_t active = count(OperandState::Unscheduled) + count(OperandState::Ready) +
                         count(OperandState::Running) + count(OperandState::Cancelling);
  switch (current) {
    case GraphState::Running:
      if (total > 0 && count(OperandState::Finished) + count(OperandState::Freed) == total)
        return GraphState::Done;
      if (count(OperandState::Fatal) > 0 && active == 0) return GraphState::Failed;
      return std::nullopt;
    case GraphState::Cancelling:
      if (active == 0) return GraphState::Cancelled;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::set<int64_t> descendants(const std::multimap<int64_t, int64_t>& successors_of, int64_t start) {
  std::set<int64_t> seen;
  std::deque<int64_t> queue{start};
  while (!queue.empty()) {
    int64_t id = queue.front();
    queue.pop_front();
    auto [first, last] = successors_of.equal_range(id);
    for (auto it = first; it != last; ++it) {
      if (it->second != start && seen.insert(it->second).second) queue.push_back(it->second);
    }
  }
  return seen;
}

ReassignPlan plan_reassign(const std::map<int64_t, ReassignNode>& graph,
                           const std::vector<int64_t>& needing) {
  // Pass 1: the needing operands are affected (their inputs must be produced again or
  // staged again). Pass 2: from each affected operand up to its predecessors.
  std::set<int64_t> affected;
  std::deque<int64_t> queue;
  for (int64_t id : needing) {
    if (graph.count(id) && affected.insert(id).second) queue.push_back(id);
  }
  while (!queue.empty()) {
    int64_t id = queue.front();
    queue.pop_front();
    for (int64_t pred : graph.at(id).predecessors) {
      auto it = graph.find(pred);
      if (it == graph.end()) continue;
      const ReassignNode& p = it->second;
      const bool no_data =
          (p.state == OperandState::Finished && p.output_lost) || p.state == OperandState::Freed;
      if (no_data && affected.insert(pred).second) queue.push_back(pred);
    }
  }
  ReassignPlan plan;
  for (int64_t id : affected) {
    (graph.at(id).state == OperandState::Unscheduled ? plan.held : plan.rerun).insert(id);
  }
  return plan;
}

}  // namespace tharsis
