// Operand priority (seed: "Operand selection strategy"): among ready operands, greater
// depth first, then more dependents (distinct successors), then smaller output. Running
// deep operands as soon as their inputs exist finishes subtrees before starting new ones,
// which keeps the data staged on the server small.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/operand/chunk_graph.h"

namespace tharsis::operand {

// True when `a` should run before `b` by the rule above (ties broken by smaller id, so the
// order is total).
bool runs_before(const ChunkOperand& a, int64_t a_dependents, const ChunkOperand& b, int64_t b_dependents);

// One integer per operand (index = id), higher = dispatched first, ordering operands
// exactly as the rule (equal keys share a value). Dense ranks, so values lie in
// 1..operands and fit the DB's INT column for any graph.
std::vector<int> operand_priorities(const ChunkGraph& graph);

}  // namespace tharsis::operand
