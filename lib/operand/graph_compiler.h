// One call from a submission to the graph Tharsis runs: parse (the expression language,
// or the JSON form when the text starts with '{'), tile, fuse. Priorities and placement
// are computed from the result by priority.h and placement.h.
#pragma once

#include <string>

#include "lib/operand/chunk_graph.h"
#include "lib/operand/tensor_graph.h"
#include "lib/operand/tiling.h"
#include "lib/result.h"

namespace tharsis::operand {

Result<TensorGraph> parse_submission(const std::string& text);

struct CompiledGraph {
  TensorGraph tensors;  // kept for the direct evaluator (checking the answer)
  ChunkGraph chunks;    // fused
};

Result<CompiledGraph> compile_graph(const std::string& text, const TileOptions& options = {});

}  // namespace tharsis::operand
