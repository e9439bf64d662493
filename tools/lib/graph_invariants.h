// Invariants of operand graphs (docs/operand_graphs.md) that hold at every committed instant, over one
// graph's operands, edges and each operand's current workunit; tools/check runs them.
//   ready_after_inputs   READY or RUNNING => every predecessor FINISHED or FREED, or
//                        running again after lost data (runs > 1: its successors that
//                        had staged its output carry on)
//   held_until_ready     UNSCHEDULED => its workunit has no results and is held
//                        (transition_time = never) unless cancelled (error bit CANCELLED)
//   freed_after_successors  FREED => every successor FINISHED or FREED, unless the graph
//                        is no longer RUNNING (a failed or cancelled graph frees all)
//   finished_has_output  FINISHED => an output file is recorded
//   settled (with require_settled): the graph is DONE, FAILED or CANCELLED and no operand
//                        is UNSCHEDULED, READY, RUNNING or CANCELLING
#pragma once

#include <map>
#include <string>
#include <vector>

#include "db/graph_store.h"
#include "db/rows.h"

namespace tharsis {

struct GraphSnapshot {
  GraphRow graph;
  std::vector<OperandRow> operands;
  std::vector<DependencyEdge> edges;
  std::map<int64_t, WorkunitRow> workunits;  // by id: each operand's current workunit
  std::map<int64_t, int64_t> result_counts;  // workunit id -> its number of results
};

// One line per violation: "[rule] message" naming the graph and operand.
std::vector<std::string> check_graph_invariants(const GraphSnapshot& snapshot, bool require_settled);

}  // namespace tharsis
