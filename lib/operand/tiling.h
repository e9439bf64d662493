// Tiling: tileable graph -> chunk graph (seed: "compiles the Tensor graph into a graph
// composed of Chunk and Operand"). Elementwise and transpose nodes map chunk to chunk;
// sum/mean become a partial reduction per chunk followed by a tree of AddN operands with
// the given fan-in (mean divides at the root); matmul becomes block products C(i,j) =
// sum_k A(i,k) B(k,j), the sum again a tree. Nothing is fused here (see fusion.h).
#pragma once

#include "lib/operand/chunk_graph.h"
#include "lib/operand/tensor_graph.h"

namespace tharsis::operand {

struct TileOptions {
  int fan_in = 4;  // inputs per AddN operand in tree reductions, >= 2
};

Result<ChunkGraph> tile(const TensorGraph& tensors, const TileOptions& options = {});

}  // namespace tharsis::operand
