// The tileable graph: a submitted tensor expression before it is cut into chunks. Nodes
// are whole tensors with a shape and a chunking (the extents of the chunks along each
// axis). The builder checks shapes and chunkings as nodes are added, so the expression
// language and the JSON form report the same errors; tiling.h turns the result into a
// ChunkGraph and direct_evaluator.h computes it without chunks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/operand/chunk_graph.h"
#include "lib/result.h"

namespace tharsis::operand {

enum class TensorOp { Rand, Binary, Scalar, Sum, Mean, MatMul, Transpose };

// Chunk extents along each axis, e.g. {{100,100,50},{100}} for shape (250,100) chunked (100,100).
using Chunking = std::vector<std::vector<int64_t>>;

struct TensorNode {
  TensorOp op = TensorOp::Rand;
  std::vector<int> inputs;  // node indices (smaller than this node's)
  Shape shape;
  Chunking chunking;
  StepKind step = StepKind::Add;  // Binary: Add/Sub/Mul/Div; Scalar: Scalar* kind
  double scalar = 0;              // Scalar
  int axis = kAllAxes;            // Sum/Mean
  uint64_t seed = 0;              // Rand
};

struct TensorGraph {
  std::vector<TensorNode> nodes;
  int result = -1;  // the node whose value the graph computes
};

// Limits that keep one submission bounded (memory of the direct evaluator, graph size).
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 27;
inline constexpr int64_t kMaxChunksPerTensor = 100000;

// Adds checked nodes to a TensorGraph. Each method returns the new node's index or an
// error that says what was expected and what was found.
class TensorGraphBuilder {
 public:
  // A tensor of `shape` filled from `seed`, cut into chunks of `chunk` (the last chunk
  // along an axis may be smaller).
  Result<int> rand(uint64_t seed, const Shape& shape, const Shape& chunk);
  // Elementwise x op y; both need the same shape and chunking, unless one is 0-d (a
  // reduction's result), which is broadcast over the other.
  Result<int> binary(StepKind op, int x, int y);
  // x op s for a Scalar* step kind.
  Result<int> scalar(StepKind op, int x, double value);
  // Sum or mean over one axis (negative counts from the end) or all axes (kAllAxes).
  Result<int> reduce(bool mean, int x, int axis);
  Result<int> reduce_all(bool mean, int x);
  // 2-d matrix product; x's column chunking must equal y's row chunking.
  Result<int> matmul(int x, int y);
  // Reverses the axes.
  Result<int> transpose(int x);

  const TensorNode& node(int index) const { return graph_.nodes.at(static_cast<size_t>(index)); }
  // Finishes the graph with `result` as its value, keeping only the nodes it depends on.
  TensorGraph finish(int result) &&;

 private:
  Status check_input(int x) const;
  int add(TensorNode node);
  TensorGraph graph_;
};

}  // namespace tharsis::operand
