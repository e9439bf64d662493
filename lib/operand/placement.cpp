#include "lib/operand/placement.h"

#include <algorithm>

namespace tharsis::operand {

std::map<int64_t, int64_t> place_sources(const ChunkGraph& graph, const std::vector<int64_t>& hosts) {
  std::map<int64_t, int64_t> placement;
  if (hosts.empty()) return placement;
  // Uploaded chunks are files, not jobs: nothing to place.
  auto placeable = [&](size_t v) { return graph.operands[v].is_source() && !graph.operands[v].is_input(); };
  const size_t n = graph.operands.size();
  const auto successors = successors_of(graph);
  std::vector<std::vector<int64_t>> neighbours(n);
  for (const ChunkOperand& operand : graph.operands) {
    for (int64_t input : predecessors_of(operand))
      neighbours[static_cast<size_t>(operand.id)].push_back(input);
    const auto& after = successors[static_cast<size_t>(operand.id)];
    neighbours[static_cast<size_t>(operand.id)].insert(neighbours[static_cast<size_t>(operand.id)].end(),
                                                       after.begin(), after.end());
  }
  // The seed's stop rule: a walk ends after visiting the average number of operands per host.
  const size_t share = (n + hosts.size() - 1) / hosts.size();
  std::vector<bool> visited(n, false);
  std::vector<size_t> load(hosts.size(), 0);
  size_t next_source = 0;
  for (size_t h = 0; h < hosts.size(); ++h) {
    while (next_source < n &&
           (!placeable(next_source) || placement.count(static_cast<int64_t>(next_source)))) {
      ++next_source;
    }
    if (next_source == n) break;
    size_t count = 0;
    std::vector<int64_t> stack{static_cast<int64_t>(next_source)};
    while (!stack.empty() && count < share) {
      const auto v = static_cast<size_t>(stack.back());
      stack.pop_back();
      if (visited[v]) continue;
      visited[v] = true;
      ++count;
      if (placeable(v) && !placement.count(static_cast<int64_t>(v))) {
        placement[static_cast<int64_t>(v)] = hosts[h];
        ++load[h];
      }
      // Push in reverse so the smallest id is explored first.
      const auto& next = neighbours[v];
      for (auto it = next.rbegin(); it != next.rend(); ++it) {
        if (!visited[static_cast<size_t>(*it)]) stack.push_back(*it);
      }
    }
  }
  // Sources no walk reached (the walks stopped early): least-loaded host, first in order on ties.
  for (const ChunkOperand& operand : graph.operands) {
    if (!placeable(static_cast<size_t>(operand.id)) || placement.count(operand.id)) continue;
    const size_t h = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    placement[operand.id] = hosts[h];
    ++load[h];
  }
  return placement;
}

}  // namespace tharsis::operand
