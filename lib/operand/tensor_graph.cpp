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

bool is_scalar_kind(StepKind kind) { return kind >= StepKind::ScalarAdd && kind <= StepKind::ScalarRdiv; }

}  // namespace

Status TensorGraphBuilder::check_input(int x) const {
  if (x < 0 || static_cast<size_t>(x) >= graph_.nodes.size()) {
    return make_error("no tensor node " + std::to_string(x));
  }
  return Status::success();
}

int TensorGraphBuilder::add(TensorNode node) {
  graph_.nodes.push_back(std::move(node));
  return static_cast<int>(graph_.nodes.size()) - 1;
}

Result<int> TensorGraphBuilder::rand(uint64_t seed, const Shape& shape, const Shape& chunk) {
  if (shape.size() > kMaxRank) {
    return make_error("rand: shape " + shape_text(shape) + " has more than " + std::to_string(kMaxRank) +
                      " axes");
  }
  if (chunk.size() != shape.size()) {
    return make_error("rand: chunk " + shape_text(chunk) + " must have one extent per axis of shape " +
                      shape_text(shape));
  }
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] < 1 || chunk[axis] < 1) {
      return make_error("rand: shape " + shape_text(shape) + " and chunk " + shape_text(chunk) +
                        " need extents >= 1");
    }
  }
  if (!element_count_within(shape, kMaxTensorElements)) {
    return make_error("rand: shape " + shape_text(shape) + " has more than " +
                      std::to_string(kMaxTensorElements) + " elements");
  }
  TensorNode node;
  node.op = TensorOp::Rand;
  node.seed = seed;
  node.shape = shape;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    std::vector<int64_t> extents;
    for (int64_t start = 0; start < shape[axis]; start += chunk[axis]) {
      extents.push_back(std::min(chunk[axis], shape[axis] - start));
    }
    node.chunking.push_back(std::move(extents));
  }
  if (chunk_total(node.chunking) > kMaxChunksPerTensor) {
    return make_error("rand: shape " + shape_text(shape) + " in chunks " + shape_text(chunk) + " makes " +
                      std::to_string(chunk_total(node.chunking)) + " chunks, more than " +
                      std::to_string(kMaxChunksPerTensor));
  }
  return add(std::move(node));
}

Result<int> TensorGraphBuilder::binary(StepKind op, int x, int y) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  if (Status ok = check_input(y); !ok) return Error{ok.error()};
  const std::string name(step_kind_name(op));
  if (step_input_count(op) != 2 || op == StepKind::MatMul) return make_error(name + " is not elementwise");
  const TensorNode& a = node(x);
  const TensorNode& b = node(y);
  // A 0-d operand (one chunk) is broadcast over the other.
  const TensorNode& shaped = a.shape.empty() ? b : a;
  if (a.shape.empty() || b.shape.empty()) {
    TensorNode out{TensorOp::Binary, {x, y}, shaped.shape, shaped.chunking, op, 0, kAllAxes, 0};
    return add(std::move(out));
  }
  if (a.shape != b.shape) {
    return make_error(name + ": shapes differ: " + shape_text(a.shape) + " and " + shape_text(b.shape));
  }
  if (a.chunking != b.chunking) {
    return make_error(name + ": chunkings differ: " + chunking_text(a.chunking) + " and " +
                      chunking_text(b.chunking) + " (both operands need the same chunk size)");
  }
  TensorNode out{TensorOp::Binary, {x, y}, a.shape, a.chunking, op, 0, kAllAxes, 0};
  return add(std::move(out));
}

Result<int> TensorGraphBuilder::scalar(StepKind op, int x, double value) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  if (!is_scalar_kind(op)) return make_error(std::string(step_kind_name(op)) + " is not a scalar operation");
  TensorNode out{TensorOp::Scalar, {x}, node(x).shape, node(x).chunking, op, value, kAllAxes, 0};
  return add(std::move(out));
}

Result<int> TensorGraphBuilder::reduce(bool mean, int x, int axis) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  const TensorNode& a = node(x);
  const int rank = static_cast<int>(a.shape.size());
  const int normal = axis < 0 ? axis + rank : axis;
  if (normal < 0 || normal >= rank) {
    return make_error(std::string(mean ? "mean" : "sum") + ": axis " + std::to_string(axis) +
                      " is out of range for shape " + shape_text(a.shape));
  }
  TensorNode out{
      mean ? TensorOp::Mean : TensorOp::Sum, {x}, a.shape, a.chunking, StepKind::Sum, 0, normal, 0};
  out.shape.erase(out.shape.begin() + normal);
  out.chunking.erase(out.chunking.begin() + normal);
  return add(std::move(out));
}

Result<int> TensorGraphBuilder::reduce_all(bool mean, int x) {
  if (Status ok = check_input(x); !ok) return Error{ok.error()};
  TensorNode out{mean ? TensorOp::Mean : TensorOp::Sum, {x}, {}, {}, StepKind::Sum, 0, kAllAxes, 0};
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
  TensorNode out{
      TensorOp::MatMul, {x, y}, {a.shape[0], b.shape[1]}, {a.chunking[0], b.chunking[1]}, StepKind::MatMul, 0,
      kAllAxes,         0};
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
                 0};
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
