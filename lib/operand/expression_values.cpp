#include "lib/operand/expression_values.h"

#include <array>
#include <cmath>

#include "lib/operand/kernels.h"

namespace tharsis::operand {

namespace {

Result<ExprValue> tensor_result(Result<int> node) {
  if (!node.ok()) return Error{node.error()};
  return ExprValue::of_tensor(*node);
}

// An operator's steps: tensor op tensor, tensor op number, number op tensor.
struct OperatorKinds {
  std::string_view word;
  StepKind elementwise;
  StepKind scalar;
  StepKind scalar_first;  // s op x, written as x op' s
};

constexpr std::array<OperatorKinds, 12> kOperators{{
    {"+", StepKind::Add, StepKind::ScalarAdd, StepKind::ScalarAdd},
    {"-", StepKind::Sub, StepKind::ScalarSub, StepKind::ScalarRsub},
    {"*", StepKind::Mul, StepKind::ScalarMul, StepKind::ScalarMul},
    {"/", StepKind::Div, StepKind::ScalarDiv, StepKind::ScalarRdiv},
    {"<", StepKind::Less, StepKind::ScalarLess, StepKind::ScalarGreater},
    {"<=", StepKind::LessEqual, StepKind::ScalarLessEqual, StepKind::ScalarGreaterEqual},
    {">", StepKind::Greater, StepKind::ScalarGreater, StepKind::ScalarLess},
    {">=", StepKind::GreaterEqual, StepKind::ScalarGreaterEqual, StepKind::ScalarLessEqual},
    {"==", StepKind::Equal, StepKind::ScalarEqual, StepKind::ScalarEqual},
    {"!=", StepKind::NotEqual, StepKind::ScalarNotEqual, StepKind::ScalarNotEqual},
    {"maximum", StepKind::Maximum, StepKind::ScalarMaximum, StepKind::ScalarMaximum},
    {"minimum", StepKind::Minimum, StepKind::ScalarMinimum, StepKind::ScalarMinimum},
}};

// Function names of the binary operations, and the operator each means.
constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kBinaryFunctions{{
    {"add", "+"},
    {"sub", "-"},
    {"mul", "*"},
    {"div", "/"},
    {"matmul", "@"},
    {"less", "<"},
    {"less_equal", "<="},
    {"greater", ">"},
    {"greater_equal", ">="},
    {"equal", "=="},
    {"not_equal", "!="},
    {"maximum", "maximum"},
    {"minimum", "minimum"},
}};

Result<int> tensor_argument(const std::vector<ExprValue>& args, size_t index, const std::string& name) {
  if (index >= args.size() || !args[index].is_tensor) {
    return make_error(name + ": argument " + std::to_string(index + 1) + " must be a tensor");
  }
  return args[index].node;
}

const KeywordArgument* keyword(const std::vector<KeywordArgument>& keywords, const std::string& key) {
  for (const KeywordArgument& k : keywords) {
    if (k.name == key) return &k;
  }
  return nullptr;
}

Status check_arguments(const std::string& name, const std::vector<ExprValue>& args, size_t most_positional,
                       const std::vector<KeywordArgument>& keywords,
                       const std::vector<std::string>& allowed) {
  if (args.size() > most_positional) {
    return make_error(name + ": takes at most " + std::to_string(most_positional) +
                      " positional arguments, found " + std::to_string(args.size()));
  }
  for (const KeywordArgument& k : keywords) {
    bool known = false;
    for (const std::string& a : allowed) known = known || a == k.name;
    if (!known) return make_error(name + ": unknown argument '" + k.name + "'");
  }
  return Status::success();
}

// shape= (required) and chunk= (default: the shape) of a source tensor.
Result<std::pair<Shape, Shape>> source_extents(const std::string& name,
                                               const std::vector<KeywordArgument>& keywords) {
  const KeywordArgument* shape = keyword(keywords, "shape");
  const KeywordArgument* chunk = keyword(keywords, "chunk");
  if (!shape || !shape->shape) return make_error(name + ": needs shape=(extents...)");
  if (chunk && !chunk->shape) return make_error(name + ": chunk must be a shape like (100,100)");
  return std::make_pair(*shape->shape, chunk ? *chunk->shape : *shape->shape);
}

Result<ExprValue> call_source(TensorGraphBuilder& builder, const std::string& name,
                              const std::vector<ExprValue>& args,
                              const std::vector<KeywordArgument>& keywords) {
  std::vector<std::string> allowed = {"shape", "chunk"};
  if (name == "rand") allowed.push_back("seed");
  if (name == "full") allowed.push_back("value");
  if (name == "input") allowed.push_back("files");
  if (Status ok = check_arguments(name, args, 0, keywords, allowed); !ok) return Error{ok.error()};
  auto extents = source_extents(name, keywords);
  if (!extents.ok()) return Error{extents.error()};
  const auto& [shape, chunk] = *extents;
  if (name == "rand") {
    const KeywordArgument* seed = keyword(keywords, "seed");
    if (!seed || !seed->value || seed->value->is_tensor) return make_error("rand: needs seed=<whole number>");
    auto seed_value = whole_number(seed->value->number, 0, int64_t{1} << 53, "rand: seed");
    if (!seed_value.ok()) return Error{seed_value.error()};
    return tensor_result(builder.rand(static_cast<uint64_t>(*seed_value), shape, chunk));
  }
  if (name == "input") {
    const KeywordArgument* files = keyword(keywords, "files");
    if (!files || !files->names) return make_error("input: needs files=(\"jf_...\", ...), one per chunk");
    return tensor_result(builder.input(shape, chunk, *files->names));
  }
  double value = name == "ones" ? 1.0 : 0.0;
  if (name == "full") {
    const KeywordArgument* v = keyword(keywords, "value");
    if (!v || !v->value || v->value->is_tensor) return make_error("full: needs value=<number>");
    value = v->value->number;
  }
  return tensor_result(builder.full(value, shape, chunk));
}

TensorOp reduction_op(const std::string& name) {
  if (name == "mean") return TensorOp::Mean;
  if (name == "max") return TensorOp::Max;
  if (name == "min") return TensorOp::Min;
  return TensorOp::Sum;
}

Result<ExprValue> call_reduce(TensorGraphBuilder& builder, const std::string& name,
                              const std::vector<ExprValue>& args,
                              const std::vector<KeywordArgument>& keywords) {
  if (Status ok = check_arguments(name, args, 2, keywords, {"axis"}); !ok) return Error{ok.error()};
  auto x = tensor_argument(args, 0, name);
  if (!x.ok()) return Error{x.error()};
  std::optional<ExprValue> axis;
  if (args.size() == 2) axis = args[1];
  if (const KeywordArgument* k = keyword(keywords, "axis")) {
    if (axis || !k->value) return make_error(name + ": axis given twice or not a number");
    axis = k->value;
  }
  const TensorOp op = reduction_op(name);
  if (!axis) return tensor_result(builder.reduce_all(op, *x));
  if (axis->is_tensor) return make_error(name + ": axis must be a number");
  auto a = whole_number(axis->number, -static_cast<int64_t>(kMaxRank), kMaxRank, name + ": axis");
  if (!a.ok()) return Error{a.error()};
  return tensor_result(builder.reduce(op, *x, static_cast<int>(*a)));
}

}  // namespace

Result<ExprValue> apply_operator(TensorGraphBuilder& builder, std::string_view op, ExprValue x, ExprValue y) {
  if (op == "@") {
    if (!x.is_tensor || !y.is_tensor) return make_error("@ (matmul) needs two tensors, found a number");
    return tensor_result(builder.matmul(x.node, y.node));
  }
  const OperatorKinds* kinds = nullptr;
  for (const OperatorKinds& k : kOperators) {
    if (k.word == op) kinds = &k;
  }
  if (!kinds) return make_error("unknown operator '" + std::string(op) + "'");
  if (!x.is_tensor && !y.is_tensor)
    return ExprValue::of_number(apply_step(kinds->elementwise, x.number, y.number));
  if (x.is_tensor && y.is_tensor) return tensor_result(builder.binary(kinds->elementwise, x.node, y.node));
  if (x.is_tensor) return tensor_result(builder.scalar(kinds->scalar, x.node, y.number));
  return tensor_result(builder.scalar(kinds->scalar_first, y.node, x.number));
}

Result<ExprValue> negate(TensorGraphBuilder& builder, ExprValue x) {
  if (!x.is_tensor) return ExprValue::of_number(-x.number);
  return tensor_result(builder.scalar(StepKind::ScalarRsub, x.node, 0.0));
}

Result<ExprValue> call_function(TensorGraphBuilder& builder, const std::string& name,
                                std::vector<ExprValue> args, const std::vector<KeywordArgument>& keywords) {
  if (name == "rand" || name == "full" || name == "ones" || name == "zeros" || name == "input")
    return call_source(builder, name, args, keywords);
  if (name == "sum" || name == "mean" || name == "max" || name == "min")
    return call_reduce(builder, name, args, keywords);
  for (const auto& [word, op] : kBinaryFunctions) {
    if (name != word) continue;
    if (args.size() != 2 || !keywords.empty()) return make_error(name + ": takes exactly 2 arguments");
    return apply_operator(builder, op, args[0], args[1]);
  }
  if (name == "transpose" || name == "neg") {
    if (args.size() != 1 || !keywords.empty()) return make_error(name + ": takes exactly 1 argument");
    if (name == "neg") return negate(builder, args[0]);
    auto x = tensor_argument(args, 0, name);
    if (!x.ok()) return Error{x.error()};
    return tensor_result(builder.transpose(*x));
  }
  return make_error(
      "unknown function '" + name +
      "' (known: rand, full, ones, zeros, input, sum, mean, max, min, matmul, transpose, add, sub, "
      "mul, div, less, less_equal, greater, greater_equal, equal, not_equal, maximum, minimum, neg)");
}

Result<int64_t> whole_number(double value, int64_t low, int64_t high, const std::string& what) {
  if (!(value >= static_cast<double>(low) && value <= static_cast<double>(high)) ||
      std::floor(value) != value) {
    return make_error(what + " must be a whole number in " + std::to_string(low) + ".." +
                      std::to_string(high) + ", found " + std::to_string(value));
  }
  return static_cast<int64_t>(value);
}

}  // namespace tharsis::operand
