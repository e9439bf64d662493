#include "lib/operand/tiling.h"

#include <algorithm>

namespace tharsis::operand {

namespace {

// A tensor node's chunks: operand ids in C order over the chunk grid.
struct Tiled {
  Shape grid;
  std::vector<int64_t> ids;
};

std::string position_text(const Shape& position) {
  std::string text = "[";
  for (size_t i = 0; i < position.size(); ++i) text += (i ? "," : "") + std::to_string(position[i]);
  return text + "]";
}

class Tiler {
 public:
  Tiler(const TensorGraph& tensors, const TileOptions& options) : tensors_(tensors), options_(options) {}

  Result<ChunkGraph> run() {
    if (options_.fan_in < 2)
      return make_error("tiling: fan-in must be at least 2, got " + std::to_string(options_.fan_in));
    if (tensors_.result < 0 || static_cast<size_t>(tensors_.result) >= tensors_.nodes.size()) {
      return make_error("tiling: the graph has no result node");
    }
    for (const TensorNode& node : tensors_.nodes) {
      // Checked before tiling: one matmul alone can ask for grid^3 block products.
      if (graph_.operands.size() + operand_bound(node) > options_.max_operands) {
        return make_error("tiling: more than " + std::to_string(options_.max_operands) +
                          " chunk operands; use larger chunks");
      }
      tiled_.push_back(tile_node(node));
      ++current_node_;
      if (graph_.operands.size() > options_.max_operands) {
        return make_error("tiling: more than " + std::to_string(options_.max_operands) +
                          " chunk operands; use larger chunks");
      }
    }
    const TensorNode& result = tensors_.nodes[static_cast<size_t>(tensors_.result)];
    const Tiled& chunks = tiled_[static_cast<size_t>(tensors_.result)];
    graph_.result_shape = result.shape;
    for (size_t i = 0; i < chunks.ids.size(); ++i) {
      const Shape position = unflatten_index(chunks.grid, static_cast<int64_t>(i));
      graph_.result_chunks.push_back({chunks.ids[i], chunk_offset(result, position)});
    }
    assign_depths(graph_);
    return std::move(graph_);
  }

 private:
  static Shape grid_of(const TensorNode& node) { return chunk_grid(node.chunking); }
  static Shape chunk_shape(const TensorNode& node, const Shape& position) {
    return chunk_shape_at(node.chunking, position);
  }
  static Shape chunk_offset(const TensorNode& node, const Shape& position) {
    return chunk_offset_at(node.chunking, position);
  }

  // At most how many operands tiling `node` adds (a tree adds fewer than its leaves).
  size_t operand_bound(const TensorNode& node) const {
    const auto chunks = [](const Tiled& t) { return static_cast<size_t>(t.ids.size()); };
    switch (node.op) {
      case TensorOp::Sum:
      case TensorOp::Mean:
      case TensorOp::Max:
      case TensorOp::Min:
        return 2 * chunks(input(node, 0)) + 1;
      case TensorOp::MatMul: {
        const Tiled& a = input(node, 0);
        const Tiled& b = input(node, 1);
        const auto products =
            static_cast<size_t>(a.grid[0]) * static_cast<size_t>(a.grid[1]) * static_cast<size_t>(b.grid[1]);
        return 2 * products;
      }
      default:
        return static_cast<size_t>(element_count(grid_of(node)));
    }
  }

  int64_t add_operand(OperandStep step, std::vector<int64_t> inputs, std::string label) {
    ChunkOperand operand;
    operand.id = static_cast<int64_t>(graph_.operands.size());
    operand.shape = step.shape;
    operand.steps = {std::move(step)};
    operand.inputs = std::move(inputs);
    // The tensor node's index makes the label unique in the graph: "t2.add[0,1]".
    operand.label = "t" + std::to_string(current_node_) + "." + label;
    graph_.operands.push_back(std::move(operand));
    return graph_.operands.back().id;
  }
  int64_t add_simple(StepKind kind, Shape shape, std::vector<int64_t> inputs, const std::string& where) {
    OperandStep step;
    step.kind = kind;
    step.shape = std::move(shape);
    return add_operand(std::move(step), std::move(inputs), std::string(step_kind_name(kind)) + where);
  }

  // Combines `parts` (chunks of one shape) with `kind` operands (AddN, MaxN, MinN) of at
  // most fan_in inputs each.
  int64_t tree_reduce(StepKind kind, std::vector<int64_t> parts, const Shape& shape,
                      const std::string& where) {
    const auto fan_in = static_cast<size_t>(options_.fan_in);
    for (int level = 1; parts.size() > 1; ++level) {
      std::vector<int64_t> next;
      for (size_t i = 0; i < parts.size(); i += fan_in) {
        const size_t end = std::min(parts.size(), i + fan_in);
        if (end - i == 1) {
          next.push_back(parts[i]);  // a lone leftover joins the next level
          continue;
        }
        std::vector<int64_t> group(parts.begin() + static_cast<std::ptrdiff_t>(i),
                                   parts.begin() + static_cast<std::ptrdiff_t>(end));
        next.push_back(add_simple(kind, shape, std::move(group),
                                  where + "/" + std::to_string(level) + "." + std::to_string(i / fan_in)));
      }
      parts = std::move(next);
    }
    return parts[0];
  }

  int64_t divide(int64_t id, double count, const std::string& where) {
    OperandStep step;
    step.kind = StepKind::ScalarDiv;
    step.shape = graph_.operands[static_cast<size_t>(id)].shape;
    step.scalar = count;
    return add_operand(std::move(step), {id}, "mean" + where);
  }

  Tiled tile_node(const TensorNode& node) {
    switch (node.op) {
      case TensorOp::Rand:
      case TensorOp::Full:
      case TensorOp::Input:
        return tile_source(node);
      case TensorOp::Binary:
      case TensorOp::Scalar:
      case TensorOp::Transpose:
        return tile_chunkwise(node);
      case TensorOp::Sum:
      case TensorOp::Mean:
      case TensorOp::Max:
      case TensorOp::Min:
        return node.axis == kAllAxes ? tile_reduce_all(node) : tile_reduce_axis(node);
      case TensorOp::MatMul:
        return tile_matmul(node);
    }
    return {};
  }

  const Tiled& input(const TensorNode& node, size_t index) const {
    return tiled_[static_cast<size_t>(node.inputs[index])];
  }
  const TensorNode& input_node(const TensorNode& node, size_t index) const {
    return tensors_.nodes[static_cast<size_t>(node.inputs[index])];
  }

  // Rand, Full and Input: one source operand per chunk.
  Tiled tile_source(const TensorNode& node) {
    Tiled out{grid_of(node), {}};
    for (int64_t i = 0; i < element_count(out.grid); ++i) {
      const Shape position = unflatten_index(out.grid, i);
      OperandStep step;
      step.kind = node.step;
      step.shape = chunk_shape(node, position);
      if (node.op == TensorOp::Rand) {
        step.seed = node.seed;
        step.tensor_shape = node.shape;
        step.offset = chunk_offset(node, position);
      }
      step.scalar = node.scalar;
      if (node.op == TensorOp::Input) step.file = node.files[static_cast<size_t>(i)];
      out.ids.push_back(
          add_operand(std::move(step), {}, std::string(step_kind_name(node.step)) + position_text(position)));
    }
    return out;
  }

  // Elementwise, scalar and transpose nodes: output chunk q from input chunk(s) at q
  // (transpose: at q reversed; a broadcast input: at q aligned from the right, 0 along
  // the axes where it has one chunk).
  Tiled tile_chunkwise(const TensorNode& node) {
    Tiled out{grid_of(node), {}};
    const Tiled& x = input(node, 0);
    for (int64_t i = 0; i < element_count(out.grid); ++i) {
      const Shape position = unflatten_index(out.grid, i);
      const std::string where = position_text(position);
      OperandStep step;
      step.kind = node.step;
      step.shape = chunk_shape(node, position);
      step.scalar = node.scalar;
      std::vector<int64_t> inputs;
      if (node.op == TensorOp::Transpose) {
        inputs.push_back(
            x.ids[static_cast<size_t>(flat_index(x.grid, Shape(position.rbegin(), position.rend())))]);
      } else {
        inputs.push_back(broadcast_chunk(x, position));
        if (node.op == TensorOp::Binary) inputs.push_back(broadcast_chunk(input(node, 1), position));
      }
      out.ids.push_back(
          add_operand(std::move(step), std::move(inputs), std::string(step_kind_name(node.step)) + where));
    }
    return out;
  }

  // The chunk of `t` that output chunk `position` reads under broadcasting.
  static int64_t broadcast_chunk(const Tiled& t, const Shape& position) {
    const size_t skip = position.size() - t.grid.size();
    Shape at(t.grid.size(), 0);
    for (size_t axis = 0; axis < t.grid.size(); ++axis) {
      at[axis] = t.grid[axis] == 1 ? 0 : position[skip + axis];
    }
    return t.ids[static_cast<size_t>(flat_index(t.grid, at))];
  }

  // The partial step and the tree step of a reduction node (mean sums, then divides).
  static StepKind partial_kind(const TensorNode& node) { return node.step; }
  static StepKind tree_kind(const TensorNode& node) {
    return node.step == StepKind::Max   ? StepKind::MaxN
           : node.step == StepKind::Min ? StepKind::MinN
                                        : StepKind::AddN;
  }

  Tiled tile_reduce_all(const TensorNode& node) {
    const Tiled& x = input(node, 0);
    std::vector<int64_t> parts;
    const std::string name(step_kind_name(partial_kind(node)));
    for (size_t i = 0; i < x.ids.size(); ++i) {
      OperandStep step;
      step.kind = partial_kind(node);
      step.axis = kAllAxes;
      parts.push_back(add_operand(std::move(step), {x.ids[i]},
                                  name + position_text(unflatten_index(x.grid, static_cast<int64_t>(i)))));
    }
    int64_t root = tree_reduce(tree_kind(node), std::move(parts), {}, "[]");
    if (node.op == TensorOp::Mean) {
      root = divide(root, static_cast<double>(element_count(input_node(node, 0).shape)), "[]");
    }
    return Tiled{{}, {root}};
  }

  Tiled tile_reduce_axis(const TensorNode& node) {
    const Tiled& x = input(node, 0);
    const TensorNode& source = input_node(node, 0);
    const auto axis = static_cast<size_t>(node.axis);
    Tiled out{grid_of(node), {}};
    for (int64_t i = 0; i < element_count(out.grid); ++i) {
      const Shape position = unflatten_index(out.grid, i);
      const std::string where = position_text(position);
      std::vector<int64_t> parts;
      for (int64_t k = 0; k < x.grid[axis]; ++k) {
        Shape at = position;
        at.insert(at.begin() + static_cast<std::ptrdiff_t>(axis), k);
        OperandStep step;
        step.kind = partial_kind(node);
        step.axis = node.axis;
        step.shape = chunk_shape(node, position);
        parts.push_back(add_operand(std::move(step), {x.ids[static_cast<size_t>(flat_index(x.grid, at))]},
                                    std::string(step_kind_name(step.kind)) + position_text(at)));
      }
      int64_t root = tree_reduce(tree_kind(node), std::move(parts), chunk_shape(node, position), where);
      if (node.op == TensorOp::Mean) root = divide(root, static_cast<double>(source.shape[axis]), where);
      out.ids.push_back(root);
    }
    return out;
  }

  Tiled tile_matmul(const TensorNode& node) {
    const Tiled& a = input(node, 0);
    const Tiled& b = input(node, 1);
    Tiled out{grid_of(node), {}};
    const int64_t inner = a.grid[1];
    for (int64_t i = 0; i < out.grid[0]; ++i) {
      for (int64_t j = 0; j < out.grid[1]; ++j) {
        const Shape shape = chunk_shape(node, {i, j});
        const std::string where = position_text({i, j});
        std::vector<int64_t> products;
        for (int64_t k = 0; k < inner; ++k) {
          products.push_back(add_simple(
              StepKind::MatMul, shape,
              {a.ids[static_cast<size_t>(i * inner + k)], b.ids[static_cast<size_t>(k * out.grid[1] + j)]},
              position_text({i, k, j})));
        }
        out.ids.push_back(tree_reduce(StepKind::AddN, std::move(products), shape, where));
      }
    }
    return out;
  }

  const TensorGraph& tensors_;
  TileOptions options_;
  std::vector<Tiled> tiled_;
  ChunkGraph graph_;
  size_t current_node_ = 0;
};

}  // namespace

Result<ChunkGraph> tile(const TensorGraph& tensors, const TileOptions& options) {
  return Tiler(tensors, options).run();
}

}  // namespace tharsis::operand
