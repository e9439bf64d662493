// Tiling: tileable graph -> chunk graph (seed: "compiles the Tensor graph into a graph
// composed of Chunk and Operand"). Rand, full and input tensors become one source operand
// per chunk; elementwise and transpose nodes map chunk to chunk (a broadcast operand's one
// chunk along an axis feeds every output chunk along it); sum/mean/max/min become a
// partial reduction per chunk followed by a tree of AddN/MaxN/MinN operands with the given
// fan-in (mean divides at the root); matmul becomes block products C(i,j) =
// sum_k A(i,k) B(k,j), the sum again a tree. Nothing is fused here (see fusion.h).
#pragma once

#include "lib/operand/chunk_graph.h"
#include "lib/operand/tensor_graph.h"

namespace tharsis::operand {

struct TileOptions {
  int fan_in = 4;                 // inputs per AddN operand in tree reductions, >= 2
  size_t max_operands = 1000000;  // chunk operands before fusion: bounds the work of one submission
};

Result<ChunkGraph> tile(const TensorGraph& tensors, const TileOptions& options = {});

}  // namespace tharsis::operand
