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

enum class TensorOp { Rand, Binary, Scalar, Sum, Mean, MatMul, Transpose, Full, Input, Max, Min };

// Chunk extents along each axis, e.g. {{100,100,50},{100}} for shape (250,100) chunked (100,100).
using Chunking = std::vector<std::vector<int64_t>>;

struct TensorNode {
  TensorOp op = TensorOp::Rand;
  std::vector<int> inputs;  // node indices (smaller than this node's)
  Shape shape;
  Chunking chunking;
  StepKind step = StepKind::Add;        // Binary: an elementwise kind; Scalar: a Scalar* kind;
                                        // Sum/Mean: Sum; Max/Min: Max/Min
  double scalar = 0;                    // Scalar, Full
  int axis = kAllAxes;                  // Sum/Mean/Max/Min
  uint64_t seed = 0;                    // Rand
  std::vector<std::string> files = {};  // Input: one chunk file per chunk, C order over the chunk grid
};

struct TensorGraph {
  std::vector<TensorNode> nodes;
  int result = -1;  // the node whose value the graph computes
};

// The chunk grid of a chunking (how many chunks along each axis), and the shape and first
// element of the chunk at grid `position`.
Shape chunk_grid(const Chunking& chunking);
Shape chunk_shape_at(const Chunking& chunking, const Shape& position);
Shape chunk_offset_at(const Chunking& chunking, const Shape& position);

// Limits that keep one submission bounded (memory of the direct evaluator, graph size).
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 27;
inline constexpr int64_t kMaxChunksPerTensor = 100000;
// All nodes' chunks added up. Tiling makes at least one operand of each chunk of a node
// it keeps, and refuses more than 1,000,000 (TileOptions); this bounds the graph itself,
// whose nodes each hold a copy of their chunking (a chain of 500 additions of a
// 100,000-chunk tensor held 400 MB before tiling refused it).
inline constexpr int64_t kMaxChunksPerGraph = 1000000;

// The name of a chunk a submitter uploaded: "jf_" and the md5 of its content in 32
// lowercase hex digits (BOINC's name for files sent through job_file.php).
bool is_uploaded_chunk_name(const std::string& name);

// Adds checked nodes to a TensorGraph. Each method returns the new node's index or an
// error that says what was expected and what was found.
class TensorGraphBuilder {
 public:
  // A tensor of `shape` filled from `seed`, cut into chunks of `chunk` (the last chunk
  // along an axis may be smaller).
  Result<int> rand(uint64_t seed, const Shape& shape, const Shape& chunk);
  // A tensor of `shape` whose every element is `value` (ones, zeros, full), chunked so.
  Result<int> full(double value, const Shape& shape, const Shape& chunk);
  // A tensor the submitter uploaded: one .npy file per chunk (is_uploaded_chunk_name), in
  // C order over the chunk grid. The files' presence is checked where they are staged.
  Result<int> input(const Shape& shape, const Shape& chunk, const std::vector<std::string>& files);
  // Elementwise x op y (an elementwise StepKind) with numpy broadcasting: shapes aligned
  // from the right, each axis of equal extents or one of them 1 (or missing). Where both
  // have the axis in full, their chunkings along it must be equal.
  Result<int> binary(StepKind op, int x, int y);
  // x op s for a Scalar* step kind.
  Result<int> scalar(StepKind op, int x, double value);
  // Sum, Mean, Max or Min (`op`) over one axis (negative counts from the end) or over all.
  Result<int> reduce(TensorOp op, int x, int axis);
  Result<int> reduce_all(TensorOp op, int x);
  // 2-d matrix product; x's column chunking must equal y's row chunking.
  Result<int> matmul(int x, int y);
  // Reverses the axes.
  Result<int> transpose(int x);

  const TensorNode& node(int index) const { return graph_.nodes.at(static_cast<size_t>(index)); }
  // Finishes the graph with `result` as its value, keeping only the nodes it depends on.
  TensorGraph finish(int result) &&;

 private:
  Status check_input(int x) const;
  // A source node of `shape` in chunks of `chunk` (rand, full, input), checked against the limits.
  Result<TensorNode> chunked_source(const std::string& what, const Shape& shape, const Shape& chunk) const;
  // Appends `node`, or refuses it when the graph would exceed kMaxChunksPerGraph.
  Result<int> add(TensorNode node);
  TensorGraph graph_;
  int64_t total_chunks_ = 0;
};

}  // namespace tharsis::operand
