// Implementation of tools/lib/graph_invariants.h.
#include "tools/lib/graph_invariants.h"

#include "daemons/graph_scheduler/graph_scheduler_rules.h"

namespace tharsis {

std::vector<std::string> check_graph_invariants(const GraphSnapshot& s, bool require_settled) {
  std::vector<std::string> out;
  std::map<int64_t, const OperandRow*> by_id;
  for (const auto& o : s.operands) by_id[o.id] = &o;
  std::multimap<int64_t, int64_t> preds, succs;
  for (const auto& e : s.edges) {
    preds.emplace(e.successor_id, e.predecessor_id);
    succs.emplace(e.predecessor_id, e.successor_id);
  }
  // `rerun_counts`: an operand running again after lost data (runs > 1) has finished before.
  auto all_finished = [&](const std::multimap<int64_t, int64_t>& edges, int64_t id, bool rerun_counts) {
    auto [first, last] = edges.equal_range(id);
    for (auto it = first; it != last; ++it) {
      auto other = by_id.find(it->second);
      if (other == by_id.end()) return false;
      if (!has_finished(other->second->state) && !(rerun_counts && other->second->runs > 1)) return false;
    }
    return true;
  };
  for (const auto& o : s.operands) {
    std::string where =
        "graph " + std::to_string(s.graph.id) + " operand " + std::to_string(o.id) + " (" + o.name + ")";
    auto fail = [&](const char* rule, const std::string& what) {
      out.push_back("[" + std::string(rule) + "] " + where + ": " + what);
    };
    if ((o.state == OperandState::Ready || o.state == OperandState::Running) &&
        !all_finished(preds, o.id, true)) {
      fail("ready_after_inputs", "READY/RUNNING while a predecessor has not finished");
    }
    if (o.state == OperandState::Unscheduled) {
      auto wu = s.workunits.find(o.workunitid);
      auto results = s.result_counts.find(o.workunitid);
      bool cancelled = wu != s.workunits.end() && (wu->second.error_mask & kWuErrorCancelled) != 0;
      if (wu == s.workunits.end()) {
        fail("held_until_ready", "no workunit " + std::to_string(o.workunitid));
      } else if (!cancelled && (wu->second.transition_time != kTransitionNever ||
                                (results != s.result_counts.end() && results->second > 0))) {
        fail("held_until_ready", "UNSCHEDULED but workunit " + std::to_string(o.workunitid) + " is not held");
      }
    }
    if (o.state == OperandState::Freed && s.graph.state == GraphState::Running &&
        !all_finished(succs, o.id, false)) {
      fail("freed_after_successors", "FREED while a successor has not finished");
    }
    if (o.state == OperandState::Finished && o.output_file.empty())
      fail("finished_has_output", "no output recorded");
    if (require_settled && !is_final(o.state) && o.state != OperandState::Finished) {
      fail("settled", "still " + std::to_string(code(o.state)));
    }
  }
  if (require_settled && (s.graph.state == GraphState::Running || s.graph.state == GraphState::Cancelling)) {
    out.push_back("[settled] graph " + std::to_string(s.graph.id) + " (" + s.graph.name + ") is not over");
  }
  return out;
}

}  // namespace tharsis
