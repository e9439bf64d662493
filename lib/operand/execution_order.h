// The order in which a server with `workers` identical hosts would run a graph: each
// round every free host takes the best ready operand, all finish together, successors
// whose inputs now all exist become ready. "best" is the operand priority (depth-first,
// priority.h) or breadth-first (smaller depth first, as running level by level).
#pragma once

#include <cstdint>
#include <vector>

#include "lib/operand/chunk_graph.h"

namespace tharsis::operand {

enum class OrderPolicy { Priority, BreadthFirst };

std::vector<int64_t> execution_order(const ChunkGraph& graph, OrderPolicy policy, int workers);

}  // namespace tharsis::operand
