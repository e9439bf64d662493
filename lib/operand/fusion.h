// Graph compression (seed: "merging adjacent nodes ... Operands that form a single
// chain"): an operand whose only input is an operand with no other consumer joins that
// operand's job. The fused operand keeps the chain head's inputs and runs the chain's
// steps in order, so one job computes the whole chain. In (a + b).sum() the add and the
// partial sums fuse; the rand operands do not (add has two inputs). An uploaded chunk
// (input) never heads a chain: it is a file, not a job.
#pragma once

#include "lib/operand/chunk_graph.h"

namespace tharsis::operand {

// A new graph with every single-input/single-consumer chain fused into one operand; ids
// are renumbered (still topological), depths recomputed, result chunks remapped.
ChunkGraph fuse_chains(const ChunkGraph& graph);

}  // namespace tharsis::operand
