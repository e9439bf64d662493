#include "lib/operand/tensor_graph.h"

namespace tharsis::operand {

namespace {

int64_t chunk_total(const Chunking& chunking) {
  int64_t total = 1;
  for (const auto& extents : chunking) total *= static_cast<int64_t>(extents.size());
  return total;
}

std::string chunking_text(const Chunking& chunking) {
  Shape first;
  for (const auto& extents : chunking) first.push_back(extents.empty() ? 0 : extents[0]);
  return shape_text(first);
}

const char* reduction_name(TensorOp op) {
  switch (op) {
    case TensorOp::Mean:
      return "mean";
    case TensorOp::Max:
      return "max";
    case TensorOp::Min:
      return "min";
    default:
      return "sum";
  }
}

Status check_reduction(TensorOp op) {
  if (op == TensorOp::Sum || op == TensorOp::Mean || op == TensorOp::Max || op == TensorOp::Min)
    return Status::success();
  return make_error("not a reduction (sum, mean, max, min)");
}

StepKind reduction_step(TensorOp op) {
  return op == TensorOp::Max ? StepKind::Max : op == TensorOp::Min ? StepKind::Min : StepKind::Sum;
}

}  // namespace

Shape chunk_grid(const Chunking& chunking) {
  Shape grid;
  for (const auto& extents : chunking) grid.push_back(static_cast<int64_t>(extents.size()));
  return grid;
}

Shape chunk_shape_at(const Chunking& chunking, const Shape& position) {
  Shape shape;
  for (size_t axis = 0; axis < position.size(); ++axis) {
    shape.push_back(chunking[axis][static_cast<size_t>(position[axis])]);
  }
  return shape;
}

Shape chunk_offset_at(const Chunking& chunking, const Shape& position) {
  Shape offset;
  for (size_t axis = 0; axis < position.size(); ++axis) {
    int64_t start = 0;
    for (int64_t k = 0; k < position[axis]; ++k) start += chunking[axis][static_cast<size_t>(k)];
    offset.push_back(start);
  }
  return offset;
}

bool is_uploaded_chunk_name(const std::string& name) {
  if (name.size() != 35 || name.compare(0, 3, "jf_") != 0) return false;
  for (size_t i = 3; i < name.size(); ++i) {
    const char c = name[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Status TensorGraphBuilder::check_input(int x) const {
  if (x < 0 || static_cast<size_t>(x) >= graph_.nodes.size()) {
    return make_error("no tensor node " + std::to_string(x));
  }
  return Status::success();
}

Result<int> TensorGraphBuilder::add(TensorNode node) {
  const int64_t chunks = chunk_total(node.chunking);
  if (chunks > kMaxChunksPerGraph - total_chunks_) {
    return make_error("the graph's tensors hold more than " + std::to_string(kMaxChunksPerGraph) +
                      " chunks in all; use larger chunks or fewer operations");
  }
  total_chunks_ += chunks;
  graph_.nodes.push_back(std::move(node));
  return static_cast<int>(graph_.nodes.size()) - 1;
}

Result<TensorNode> TensorGraphBuilder::chunked_source(const std::string& what, const Shape& shape,
                                                      const Shape& chunk) const {
  if (shape.size() > kMaxRank) {
    return make_error(what + ": shape " + shape_text(shape) + " has more than " + std::to_string(kMaxRank) +
                      " axes");
  }
  if (chunk.size() != shape.size()) {
    return make_error(what + ": chunk " + shape_text(chunk) + " must have one extent per axis of shape " +
                      shape_text(shape));
  }
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] < 1 || chunk[axis] < 1) {
      return make_error(what + ": shape " + shape_text(shape) + " and chunk " + shape_text(chunk) +
                        " need extents >= 1");
    }
  }
  if (!element_count_within(shape, kMaxTensorElements)) {
    return make_error(what + ": shape " + shape_text(shape) + " has more than " +
                      std::to_string(kMaxTensorElements) + " elements");
  }
  // Counted before the extents are built: a shape of 2^27 elements in chunks of 1 would
  // otherwise fill a 1 GiB vector before being refused. (At most 2^27 chunks in all, as
  // each holds at least one element: no overflow.)
  int64_t chunks = 1;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    chunks *= shape[axis] / chunk[axis] + (shape[axis] % chunk[axis] != 0 ? 1 : 0);
  }
  if (chunks > kMaxChunksPerTensor) {
    return make_error(what + ": shape " + shape_text(shape) + " in chunks " + shape_text(chunk) + " makes " +
                      std::to_string(chunks) + " chunks, more than " + std::to_string(kMaxChunksPerTensor));
  }
  TensorNode node;
  node.shape = shape;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    std::vector<int64_t> extents;
    for (int64_t start = 0; start < shape[axis]; start += chunk[axis]) {
      extents.push_back(std::min(chunk[axis], shape[axis] - start));
    }
    node.chunking.push_back(std::move(extents));
  }
  return node;
}

Result<int> TensorGraphBuilder::rand(uint64_t seed, const Shape& shape, const Shape& chunk) {
  auto node = chunked_source("rand", shape, chunk);
  if (!node.ok()) return Error{node.error()};
  node->op = TensorOp::Rand;
  node->step = StepKind::Rand;
  node->seed = seed;
  return add(std::move(*node));
}

Result<int> TensorGraphBuilder::full(double value, const Shape& shape, const Shape& chunk) {
  auto node = chunked_source("full", shape, chunk);
  if (!node.ok()) return Error{node.error()};
  node->op = TensorOp::Full;
  node->step = StepKind::Full;
  node->scalar = value;
  return add(std::move(*node));
}

Result<int> TensorGraphBuilder::input(const Shape& shape, const Shape& chunk,
                                      const std::vector<std::string>& files) {
  auto node = chunked_source("input", shape, chunk);
  if (!node.ok()) return Error{node.error()};
  const auto chunks = static_cast<size_t>(chunk_total(node->chunking));
  if (files.size() != chunks) {
    return make_error("input: shape " + shape_text(shape) + " in chunks " + shape_text(chunk) + " has " +
                      std::to_string(chunks) + " chunks, but " + std::to_string(files.size()) +
                      " files are given (one per chunk, C order)");
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (!is_uploaded_chunk_name(files[i])) {
      return make_error("input: file " + std::to_string(i) + " '" + files[i].substr(0, 64) +
                        "' is not an uploaded chunk name (jf_ and the md5 of its content)");
    }
  }
  node->op = TensorOp::Input;
  node->step = StepKind::Input;
  node->files = files;
  return add(std::move(*node));
}

Result<int> TensorGraphBuilder::binary(StepKind op, int x, int y) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  if (Status ok = check_input(y); !ok) return Error{ok.error()};
  const std::string name(step_kind_name(op));
  if (!is_elementwise_step(op)) return make_error(name + " is not elementwise");
  const TensorNode& a = node(x);
  const TensorNode& b = node(y);
  auto shape = broadcast_shape(a.shape, b.shape);
  if (!shape) {
    return make_error(name + ": shapes differ: " + shape_text(a.shape) + " and " + shape_text(b.shape) +
                      " (broadcasting needs equal extents or 1 on each axis)");
  }
  // Each output axis takes the chunking of an operand that has it in full; an operand
  // with extent 1 there (or without the axis) repeats its one chunk.
  Chunking chunking(shape->size());
  const size_t rank = shape->size();
  for (size_t k = 0; k < rank; ++k) {
    const size_t axis = rank - 1 - k;
    const std::vector<int64_t>* from_a = k < a.shape.size() ? &a.chunking[a.shape.size() - 1 - k] : nullptr;
    const std::vector<int64_t>* from_b = k < b.shape.size() ? &b.chunking[b.shape.size() - 1 - k] : nullptr;
    const bool a_full = from_a && a.shape[a.shape.size() - 1 - k] == (*shape)[axis];
    const bool b_full = from_b && b.shape[b.shape.size() - 1 - k] == (*shape)[axis];
    if (a_full && b_full && *from_a != *from_b) {
      return make_error(name + ": chunkings differ: " + chunking_text(a.chunking) + " and " +
                        chunking_text(b.chunking) + " along axis " + std::to_string(axis) +
                        " (both operands need the same chunk size where neither is broadcast)");
    }
    chunking[axis] = a_full ? *from_a : *from_b;
  }
  if (chunk_total(chunking) > kMaxChunksPerTensor) {
    return make_error(name + ": the broadcast result has " + std::to_string(chunk_total(chunking)) +
                      " chunks, more than " + std::to_string(kMaxChunksPerTensor));
  }
  if (!element_count_within(*shape, kMaxTensorElements)) {
    return make_error(name + ": the broadcast result " + shape_text(*shape) + " has more than " +
                      std::to_string(kMaxTensorElements) + " elements");
  }
  TensorNode out{TensorOp::Binary, {x, y}, *shape, std::move(chunking), op, 0, kAllAxes, 0, {}};
  return add(std::move(out));
}

Result<int> TensorGraphBuilder::scalar(StepKind op, int x, double value) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  if (!is_scalar_step(op)) return make_error(std::string(step_kind_name(op)) + " is not a scalar operation");
  TensorNode out{TensorOp::Scalar, {x}, node(x).shape, node(x).chunking, op, value, kAllAxes, 0, {}};
  return add(std::move(out));
}

Result<int> TensorGraphBuilder::reduce(TensorOp op, int x, int axis) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  if (Status ok = check_reduction(op); !ok) return Error{ok.error()};
  const TensorNode& a = node(x);
  const int rank = static_cast<int>(a.shape.size());
  const int normal = axis < 0 ? axis + rank : axis;
  if (normal < 0 || normal >= rank) {
    return make_error(std::string(reduction_name(op)) + ": axis " + std::to_string(axis) +
                      " is out of range for shape " + shape_text(a.shape));
  }
  TensorNode out{op, {x}, a.shape, a.chunking, reduction_step(op), 0, normal, 0, {}};
  out.shape.erase(out.shape.begin() + normal);
  out.chunking.erase(out.chunking.begin() + normal);
  return add(std::move(out));
}

Result<int> TensorGraphBuilder::reduce_all(TensorOp op, int x) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  if (Status ok = check_reduction(op); !ok) return Error{ok.error()};
  TensorNode out{op, {x}, {}, {}, reduction_step(op), 0, kAllAxes, 0, {}};
  return add(std::move(out));
}

Result<int> TensorGraphBuilder::matmul(int x, int y) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  if (Status ok = check_input(y); !ok) return Error{ok.error()};
  const TensorNode& a = node(x);
  const TensorNode& b = node(y);
  if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[1] != b.shape[0]) {
    return make_error("matmul: needs (m,k) @ (k,n), found " + shape_text(a.shape) + " @ " +
                      shape_text(b.shape));
  }
  if (a.chunking[1] != b.chunking[0]) {
    return make_error("matmul: the left operand's column chunks " + chunking_text({a.chunking[1]}) +
                      " must equal the right operand's row chunks " + chunking_text({b.chunking[0]}));
  }
  TensorNode out{TensorOp::MatMul,
                 {x, y},
                 {a.shape[0], b.shape[1]},
                 {a.chunking[0], b.chunking[1]},
                 StepKind::MatMul,
                 0,
                 kAllAxes,
                 0,
                 {}};
  return add(std::move(out));
}

Result<int> TensorGraphBuilder::transpose(int x) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  const TensorNode& a = node(x);
  TensorNode out{TensorOp::Transpose,
                 {x},
                 Shape(a.shape.rbegin(), a.shape.rend()),
                 Chunking(a.chunking.rbegin(), a.chunking.rend()),
                 StepKind::Transpose,
                 0,
                 kAllAxes,
                 0,
                 {}};
  return add(std::move(out));
}

TensorGraph TensorGraphBuilder::finish(int result) && {
  // Only what the result needs is computed: named tensors it never uses are dropped.
  std::vector<bool> needed(graph_.nodes.size(), false);
  if (result >= 0 && static_cast<size_t>(result) < needed.size()) needed[static_cast<size_t>(result)] = true;
  for (size_t i = needed.size(); i-- > 0;) {
    if (!needed[i]) continue;
    for (int input : graph_.nodes[i].inputs) needed[static_cast<size_t>(input)] = true;
  }
  TensorGraph kept;
  std::vector<int> new_index(graph_.nodes.size(), -1);
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    if (!needed[i]) continue;
    new_index[i] = static_cast<int>(kept.nodes.size());
    TensorNode node = std::move(graph_.nodes[i]);
    for (int& input : node.inputs) input = new_index[static_cast<size_t>(input)];
    kept.nodes.push_back(std::move(node));
  }
  kept.result = result >= 0 && static_cast<size_t>(result) < new_index.size()
                    ? new_index[static_cast<size_t>(result)]
                    : -1;
  return kept;
}

}  // namespace tharsis::operand
