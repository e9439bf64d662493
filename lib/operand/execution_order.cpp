#include "lib/operand/execution_order.h"

#include <algorithm>

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
  std::vector<size_t> waiting(graph.operands.size());  // unfinished distinct predecessors
  std::vector<int64_t> ready;
  for (const ChunkOperand& operand : graph.operands) {
    waiting[static_cast<size_t>(operand.id)] = predecessors_of(operand).size();
    if (operand.is_source()) ready.push_back(operand.id);
  }
  std::vector<int64_t> order;
  const auto per_round = static_cast<size_t>(std::max(1, workers));
  while (!ready.empty()) {
    std::sort(ready.begin(), ready.end(), better);
    const size_t taken = std::min(per_round, ready.size());
    const std::vector<int64_t> round(ready.begin(), ready.begin() + static_cast<std::ptrdiff_t>(taken));
    ready.erase(ready.begin(), ready.begin() + static_cast<std::ptrdiff_t>(taken));
    for (int64_t id : round) {
      order.push_back(id);
      for (int64_t next : successors[static_cast<size_t>(id)]) {
        if (--waiting[static_cast<size_t>(next)] == 0) ready.push_back(next);
      }
    }
  }
  return order;
}

}  // namespace tharsis::operand
