#include "lib/operand/execution_order.h"

#include <algorithm>
#include <queue>

#include "lib/operand/priority.h"

namespace tharsis::operand {

std::vector<int64_t> execution_order(const ChunkGraph& graph, OrderPolicy policy, int workers) {
  const auto successors = successors_of(graph);
  const auto dependents = [&](int64_t id) {
    return static_cast<int64_t>(successors[static_cast<size_t>(id)].size());
  };
  const auto better = [&](int64_t a, int64_t b) {
    const ChunkOperand& x = graph.operands[static_cast<size_t>(a)];
    const ChunkOperand& y = graph.operands[static_cast<size_t>(b)];
    if (policy == OrderPolicy::Priority) return runs_before(x, dependents(a), y, dependents(b));
    return x.depth != y.depth ? x.depth < y.depth : a < b;
  };
  // A heap keeps each pick O(log n), so studies of large trees stay fast.
  const auto worse = [&](int64_t a, int64_t b) { return better(b, a); };
  std::priority_queue<int64_t, std::vector<int64_t>, decltype(worse)> ready(worse);
  std::vector<size_t> waiting(graph.operands.size());  // unfinished distinct predecessors
  for (const ChunkOperand& operand : graph.operands) {
    waiting[static_cast<size_t>(operand.id)] = predecessors_of(operand).size();
    if (operand.is_source()) ready.push(operand.id);
  }
  std::vector<int64_t> order;
  const auto per_round = static_cast<size_t>(std::max(1, workers));
  while (!ready.empty()) {
    // A round: each worker takes the best ready operand; successors become ready after it.
    std::vector<int64_t> round;
    while (round.size() < per_round && !ready.empty()) {
      round.push_back(ready.top());
      ready.pop();
    }
    for (int64_t id : round) {
      order.push_back(id);
      for (int64_t next : successors[static_cast<size_t>(id)]) {
        if (--waiting[static_cast<size_t>(next)] == 0) ready.push(next);
      }
    }
  }
  return order;
}

}  // namespace tharsis::operand
