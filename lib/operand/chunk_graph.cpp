#include "lib/operand/chunk_graph.h"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

namespace tharsis::operand {

namespace {

constexpr std::array<std::pair<StepKind, std::string_view>, 37> kStepNames{{
    {StepKind::Rand, "rand"},
    {StepKind::Add, "add"},
    {StepKind::Sub, "sub"},
    {StepKind::Mul, "mul"},
    {StepKind::Div, "div"},
    {StepKind::AddN, "add_n"},
    {StepKind::ScalarAdd, "add_scalar"},
    {StepKind::ScalarSub, "sub_scalar"},
    {StepKind::ScalarRsub, "rsub_scalar"},
    {StepKind::ScalarMul, "mul_scalar"},
    {StepKind::ScalarDiv, "div_scalar"},
    {StepKind::ScalarRdiv, "rdiv_scalar"},
    {StepKind::Sum, "sum"},
    {StepKind::MatMul, "matmul"},
    {StepKind::Transpose, "transpose"},
    {StepKind::Less, "lt"},
    {StepKind::LessEqual, "le"},
    {StepKind::Greater, "gt"},
    {StepKind::GreaterEqual, "ge"},
    {StepKind::Equal, "eq"},
    {StepKind::NotEqual, "ne"},
    {StepKind::Maximum, "maximum"},
    {StepKind::Minimum, "minimum"},
    {StepKind::ScalarLess, "lt_scalar"},
    {StepKind::ScalarLessEqual, "le_scalar"},
    {StepKind::ScalarGreater, "gt_scalar"},
    {StepKind::ScalarGreaterEqual, "ge_scalar"},
    {StepKind::ScalarEqual, "eq_scalar"},
    {StepKind::ScalarNotEqual, "ne_scalar"},
    {StepKind::ScalarMaximum, "maximum_scalar"},
    {StepKind::ScalarMinimum, "minimum_scalar"},
    {StepKind::Full, "full"},
    {StepKind::Max, "max"},
    {StepKind::Min, "min"},
    {StepKind::MaxN, "maximum_n"},
    {StepKind::MinN, "minimum_n"},
    {StepKind::Input, "input"},
}};

}  // namespace

std::string_view step_kind_name(StepKind kind) {
  for (const auto& [k, name] : kStepNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<StepKind> step_kind_from_name(std::string_view name) {
  for (const auto& [k, n] : kStepNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

int step_input_count(StepKind kind) {
  switch (kind) {
    case StepKind::Rand:
    case StepKind::Full:
    case StepKind::Input:
      return 0;
    case StepKind::AddN:
    case StepKind::MaxN:
    case StepKind::MinN:
      return -1;
    case StepKind::MatMul:
      return 2;
    default:
      return is_elementwise_step(kind) ? 2 : 1;
  }
}

bool is_scalar_step(StepKind kind) {
  return (kind >= StepKind::ScalarAdd && kind <= StepKind::ScalarRdiv) ||
         (kind >= StepKind::ScalarLess && kind <= StepKind::ScalarMinimum);
}

bool is_elementwise_step(StepKind kind) {
  return (kind >= StepKind::Add && kind <= StepKind::Div) ||
         (kind >= StepKind::Less && kind <= StepKind::Minimum);
}

bool is_reduction_step(StepKind kind) {
  return kind == StepKind::Sum || kind == StepKind::Max || kind == StepKind::Min;
}

std::vector<std::vector<int64_t>> successors_of(const ChunkGraph& graph) {
  std::vector<std::vector<int64_t>> successors(graph.operands.size());
  for (const ChunkOperand& operand : graph.operands) {
    for (int64_t input : predecessors_of(operand)) {
      successors[static_cast<size_t>(input)].push_back(operand.id);
    }
  }
  return successors;  // ascending: operands are visited in id order
}

std::vector<int64_t> predecessors_of(const ChunkOperand& operand) {
  std::vector<int64_t> ids = operand.inputs;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

void assign_depths(ChunkGraph& graph) {
  for (ChunkOperand& operand : graph.operands) {
    operand.depth = 0;
    for (int64_t input : operand.inputs) {
      operand.depth = std::max(operand.depth, graph.operands[static_cast<size_t>(input)].depth + 1);
    }
  }
}

Status check_chunk_graph(const ChunkGraph& graph) {
  std::set<std::string> labels;
  for (size_t i = 0; i < graph.operands.size(); ++i) {
    const ChunkOperand& operand = graph.operands[i];
    const std::string where = "operand " + std::to_string(i) + " (" + operand.label + ")";
    if (operand.id != static_cast<int64_t>(i)) {
      return make_error(where + ": id " + std::to_string(operand.id) + " differs from its index");
    }
    if (operand.steps.empty()) return make_error(where + ": no steps");
    if (!labels.insert(operand.label).second) return make_error(where + ": label used twice");
    if (operand.shape != operand.steps.back().shape) {
      return make_error(where + ": shape " + shape_text(operand.shape) + " is not its last step's " +
                        shape_text(operand.steps.back().shape));
    }
    for (int64_t input : operand.inputs) {
      if (input < 0 || input >= operand.id) {
        return make_error(where + ": input " + std::to_string(input) + " is not an earlier operand");
      }
    }
  }
  for (const ResultChunk& chunk : graph.result_chunks) {
    if (chunk.operand < 0 || chunk.operand >= static_cast<int64_t>(graph.operands.size())) {
      return make_error("result chunk names missing operand " + std::to_string(chunk.operand));
    }
  }
  return Status::success();
}

Result<NdArray> assemble_result(const ChunkGraph& graph, const std::map<int64_t, NdArray>& outputs) {
  NdArray result = filled(graph.result_shape, 0.0);
  const size_t rank = graph.result_shape.size();
  for (const ResultChunk& chunk : graph.result_chunks) {
    auto found = outputs.find(chunk.operand);
    if (found == outputs.end()) {
      return make_error("result chunk of operand " + std::to_string(chunk.operand) + " is missing");
    }
    const NdArray& part = found->second;
    const Shape& expected = graph.operands.at(static_cast<size_t>(chunk.operand)).shape;
    if (part.shape != expected || chunk.offset.size() != rank) {
      return make_error("result chunk of operand " + std::to_string(chunk.operand) + " has shape " +
                        shape_text(part.shape) + ", expected " + shape_text(expected));
    }
    for (int64_t i = 0; i < element_count(part.shape); ++i) {
      Shape position = unflatten_index(part.shape, i);
      for (size_t axis = 0; axis < rank; ++axis) position[axis] += chunk.offset[axis];
      result.data[static_cast<size_t>(flat_index(result.shape, position))] =
          part.data[static_cast<size_t>(i)];
    }
  }
  return result;
}

}  // namespace tharsis::operand
