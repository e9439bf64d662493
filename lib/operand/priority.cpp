#include "lib/operand/priority.h"

#include <algorithm>
#include <tuple>

namespace tharsis::operand {

namespace {

// Smaller key = runs earlier: depth descending, dependents descending, output ascending.
std::tuple<int, int64_t, int64_t> order_key(const ChunkOperand& operand, int64_t dependents) {
  return {-operand.depth, -dependents, operand.output_bytes()};
}

}  // namespace

bool runs_before(const ChunkOperand& a, int64_t a_dependents, const ChunkOperand& b, int64_t b_dependents) {
  const auto ka = order_key(a, a_dependents);
  const auto kb = order_key(b, b_dependents);
  if (ka != kb) return ka < kb;
  return a.id < b.id;
}

std::vector<int> operand_priorities(const ChunkGraph& graph) {
  const auto successors = successors_of(graph);
  std::vector<std::tuple<int, int64_t, int64_t>> keys;
  for (const ChunkOperand& operand : graph.operands) {
    keys.push_back(
        order_key(operand, static_cast<int64_t>(successors[static_cast<size_t>(operand.id)].size())));
  }
  std::vector<std::tuple<int, int64_t, int64_t>> distinct = keys;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<int> priorities;
  for (const auto& key : keys) {
    const auto rank = std::lower_bound(distinct.begin(), distinct.end(), key) - distinct.begin();
    priorities.push_back(static_cast<int>(distinct.size()) - static_cast<int>(rank));
  }
  return priorities;
}

}  // namespace tharsis::operand
