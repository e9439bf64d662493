#include "lib/operand/expression_values.h"

#include <cmath>

namespace tharsis::operand {

namespace {

Result<ExprValue> tensor_result(Result<int> node) {
  if (!node.ok()) return Error{node.error()};
  return ExprValue::of_tensor(*node);
}

StepKind elementwise_kind(char op) {
  switch (op) {
    case '+':
      return StepKind::Add;
    case '-':
      return StepKind::Sub;
    case '*':
      return StepKind::Mul;
    default:
      return StepKind::Div;
  }
}

// tensor op s when `tensor_first`, else s op tensor.
StepKind scalar_kind(char op, bool tensor_first) {
  switch (op) {
    case '+':
      return StepKind::ScalarAdd;
    case '-':
      return tensor_first ? StepKind::ScalarSub : StepKind::ScalarRsub;
    case '*':
      return StepKind::ScalarMul;
    default:
      return tensor_first ? StepKind::ScalarDiv : StepKind::ScalarRdiv;
  }
}

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

Result<ExprValue> call_rand(TensorGraphBuilder& builder, const std::vector<ExprValue>& args,
                            const std::vector<KeywordArgument>& keywords) {
  if (Status ok = check_arguments("rand", args, 0, keywords, {"seed", "shape", "chunk"}); !ok)
    return Error{ok.error()};
  const KeywordArgument* seed = keyword(keywords, "seed");
  const KeywordArgument* shape = keyword(keywords, "shape");
  const KeywordArgument* chunk = keyword(keywords, "chunk");
  if (!seed || !seed->value || seed->value->is_tensor) return make_error("rand: needs seed=<whole number>");
  if (!shape || !shape->shape) return make_error("rand: needs shape=(extents...)");
  if (chunk && !chunk->shape) return make_error("rand: chunk must be a shape like (100,100)");
  auto seed_value = whole_number(seed->value->number, 0, int64_t{1} << 53, "rand: seed");
  if (!seed_value.ok()) return Error{seed_value.error()};
  return tensor_result(
      builder.rand(static_cast<uint64_t>(*seed_value), *shape->shape, chunk ? *chunk->shape : *shape->shape));
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
  const bool mean = name == "mean";
  if (!axis) return tensor_result(builder.reduce_all(mean, *x));
  if (axis->is_tensor) return make_error(name + ": axis must be a number");
  auto a = whole_number(axis->number, -static_cast<int64_t>(kMaxRank), kMaxRank, name + ": axis");
  if (!a.ok()) return Error{a.error()};
  return tensor_result(builder.reduce(mean, *x, static_cast<int>(*a)));
}

}  // namespace

Result<ExprValue> apply_operator(TensorGraphBuilder& builder, char op, ExprValue x, ExprValue y) {
  if (op == '@') {
    if (!x.is_tensor || !y.is_tensor) return make_error("@ (matmul) needs two tensors, found a number");
    return tensor_result(builder.matmul(x.node, y.node));
  }
  if (op != '+' && op != '-' && op != '*' && op != '/')
    return make_error(std::string("unknown operator '") + op + "'");
  if (!x.is_tensor && !y.is_tensor) {
    switch (op) {
      case '+':
        return ExprValue::of_number(x.number + y.number);
      case '-':
        return ExprValue::of_number(x.number - y.number);
      case '*':
        return ExprValue::of_number(x.number * y.number);
      default:
        return ExprValue::of_number(x.number / y.number);
    }
  }
  if (x.is_tensor && y.is_tensor) return tensor_result(builder.binary(elementwise_kind(op), x.node, y.node));
  if (x.is_tensor) return tensor_result(builder.scalar(scalar_kind(op, true), x.node, y.number));
  return tensor_result(builder.scalar(scalar_kind(op, false), y.node, x.number));
}

Result<ExprValue> negate(TensorGraphBuilder& builder, ExprValue x) {
  if (!x.is_tensor) return ExprValue::of_number(-x.number);
  return tensor_result(builder.scalar(StepKind::ScalarRsub, x.node, 0.0));
}

Result<ExprValue> call_function(TensorGraphBuilder& builder, const std::string& name,
                                std::vector<ExprValue> args, const std::vector<KeywordArgument>& keywords) {
  if (name == "rand") return call_rand(builder, args, keywords);
  if (name == "sum" || name == "mean") return call_reduce(builder, name, args, keywords);
  const std::vector<std::pair<std::string, char>> binary = {
      {"add", '+'}, {"sub", '-'}, {"mul", '*'}, {"div", '/'}, {"matmul", '@'}};
  for (const auto& [word, op] : binary) {
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
  return make_error("unknown function '" + name +
                    "' (known: rand, sum, mean, matmul, transpose, add, sub, mul, div, neg)");
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
