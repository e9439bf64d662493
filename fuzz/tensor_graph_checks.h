// The checks the two operand submission targets share: a parsed TensorGraph keeps the
// builder's promises (inputs before the node, result in range, bounded shapes, chunkings
// that tile the shape), and a small graph compiles (tile + fuse) to a valid chunk graph;
// check_parsed_graph is their whole contract on what a parser returned.
#pragma once

#include <numeric>

#include "fuzz/fuzz_check.h"
#include "lib/operand/fusion.h"
#include "lib/operand/tensor_graph.h"
#include "lib/operand/tiling.h"
#include "lib/result.h"

namespace tharsis::fuzz {

// Chunks in the whole graph (0 when a chunking is malformed, which the caller checks first).
inline int64_t total_chunks(const operand::TensorGraph& graph) {
  int64_t total = 0;
  for (const auto& node : graph.nodes) {
    int64_t chunks = 1;
    for (const auto& extents : node.chunking) chunks *= static_cast<int64_t>(extents.size());
    total += chunks;
  }
  return total;
}

inline void check_tensor_graph(const operand::TensorGraph& graph) {
  FUZZ_CHECK(!graph.nodes.empty(), "a graph without nodes");
  FUZZ_CHECK(graph.result >= 0 && static_cast<size_t>(graph.result) < graph.nodes.size(),
             "result out of range");
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const auto& node = graph.nodes[i];
    for (int input : node.inputs)
      FUZZ_CHECK(input >= 0 && static_cast<size_t>(input) < i, "input not before node");
    FUZZ_CHECK(node.shape.size() <= operand::kMaxRank, "rank over the limit");
    FUZZ_CHECK(operand::element_count_within(node.shape, operand::kMaxTensorElements),
               "tensor over the limit");
    FUZZ_CHECK(node.chunking.size() == node.shape.size(), "chunking rank differs from shape rank");
    int64_t chunks = 1;
    for (size_t axis = 0; axis < node.shape.size(); ++axis) {
      const auto& extents = node.chunking[axis];
      int64_t sum = 0;
      for (int64_t extent : extents) {
        FUZZ_CHECK(extent > 0, "empty chunk");
        sum += extent;
      }
      FUZZ_CHECK(sum == node.shape[axis] || (node.shape[axis] == 0 && extents.empty()),
                 "chunking does not tile");
      chunks *= static_cast<int64_t>(extents.size());
    }
    FUZZ_CHECK(chunks <= operand::kMaxChunksPerTensor, "too many chunks");
  }
}

// Tiles and fuses graphs small enough to keep the fuzzer fast (tiling is bounded by its own
// operand limit, tested in the unit tests).
inline void check_compiles(const operand::TensorGraph& graph) {
  if (total_chunks(graph) > 256) return;
  auto chunks = operand::tile(graph);
  if (!chunks.ok()) {
    FUZZ_CHECK(!chunks.error().empty(), "tiling error without a message");
    return;
  }
  auto valid = operand::check_chunk_graph(*chunks);
  FUZZ_CHECK(valid.ok(), "tiled graph broken: " + valid.error());
  auto fused = operand::fuse_chains(*chunks);
  valid = operand::check_chunk_graph(fused);
  FUZZ_CHECK(valid.ok(), "fused graph broken: " + valid.error());
  FUZZ_CHECK(fused.result_shape == graph.nodes[static_cast<size_t>(graph.result)].shape,
             "result shape changed");
}

// An error has a message; a graph keeps the builder's promises and, when small, compiles.
inline void check_parsed_graph(const Result<operand::TensorGraph>& graph) {
  if (!graph.ok()) {
    FUZZ_CHECK(!graph.error().empty(), "an error without a message");
    return;
  }
  check_tensor_graph(*graph);
  check_compiles(*graph);
}

}  // namespace tharsis::fuzz
