#include "lib/operand/direct_evaluator.h"

#include <algorithm>
#include <cmath>

#include "lib/operand/kernels.h"

namespace tharsis::operand {

namespace {

// The whole-tensor step of one node (the chunked graph splits the same step).
OperandStep whole_step(const TensorNode& node) {
  OperandStep step;
  step.kind = node.step;
  step.shape = node.shape;
  step.scalar = node.scalar;
  step.axis = node.axis;
  step.seed = node.seed;
  step.tensor_shape = node.shape;
  step.offset = Shape(node.shape.size(), 0);
  return step;
}

// An uploaded tensor put together from its chunk files' arrays.
Result<NdArray> assemble_upload(const TensorNode& node, const InputChunks& uploaded) {
  NdArray whole = filled(node.shape, 0.0);
  const Shape grid = chunk_grid(node.chunking);
  for (size_t i = 0; i < node.files.size(); ++i) {
    const Shape position = unflatten_index(grid, static_cast<int64_t>(i));
    const Shape offset = chunk_offset_at(node.chunking, position);
    const Shape shape = chunk_shape_at(node.chunking, position);
    auto found = uploaded.find(node.files[i]);
    if (found == uploaded.end()) return make_error("uploaded chunk " + node.files[i] + " is not given");
    if (found->second.shape != shape) {
      return make_error("uploaded chunk " + node.files[i] + " has shape " + shape_text(found->second.shape) +
                        ", expected " + shape_text(shape));
    }
    for (int64_t k = 0; k < element_count(shape); ++k) {
      Shape at = unflatten_index(shape, k);
      for (size_t axis = 0; axis < at.size(); ++axis) at[axis] += offset[axis];
      whole.data[static_cast<size_t>(flat_index(node.shape, at))] =
          found->second.data[static_cast<size_t>(k)];
    }
  }
  return whole;
}

}  // namespace

Result<NdArray> evaluate_directly(const TensorGraph& graph, const InputChunks& uploaded) {
  if (graph.result < 0 || static_cast<size_t>(graph.result) >= graph.nodes.size()) {
    return make_error("direct evaluation: the graph has no result node");
  }
  std::vector<NdArray> values;
  for (const TensorNode& node : graph.nodes) {
    std::vector<const NdArray*> inputs;
    for (int input : node.inputs) inputs.push_back(&values[static_cast<size_t>(input)]);
    auto value =
        node.op == TensorOp::Input ? assemble_upload(node, uploaded) : run_step(whole_step(node), inputs);
    if (!value.ok()) return make_error("direct evaluation: " + value.error());
    if (node.op == TensorOp::Mean) {
      const Shape& source = graph.nodes[static_cast<size_t>(node.inputs[0])].shape;
      const double count = node.axis == kAllAxes
                               ? static_cast<double>(element_count(source))
                               : static_cast<double>(source[static_cast<size_t>(node.axis)]);
      for (double& v : value->data) v /= count;
    }
    values.push_back(std::move(*value));
  }
  return std::move(values[static_cast<size_t>(graph.result)]);
}

Result<double> max_relative_difference(const NdArray& a, const NdArray& b) {
  if (a.shape != b.shape) {
    return make_error("cannot compare shapes " + shape_text(a.shape) + " and " + shape_text(b.shape));
  }
  double worst = 0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    const double scale = std::max({std::fabs(a.data[i]), std::fabs(b.data[i]), 1e-300});
    worst = std::max(worst, std::fabs(a.data[i] - b.data[i]) / scale);
  }
  return worst;
}

}  // namespace tharsis::operand
