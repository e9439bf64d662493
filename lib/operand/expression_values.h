// What the expression language and the JSON form share: a value is either a number or a
// tensor node, and arithmetic between them means the same in both (number op number
// folds, tensor op number is a scalar step, tensor op tensor is elementwise).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/operand/tensor_graph.h"
#include "lib/result.h"

namespace tharsis::operand {

struct ExprValue {
  bool is_tensor = false;
  int node = -1;      // when is_tensor
  double number = 0;  // otherwise

  static ExprValue of_number(double value) { return {false, -1, value}; }
  static ExprValue of_tensor(int index) { return {true, index, 0}; }
};

// op is one of + - * / < <= > >= == != (comparisons give 1 or 0), "maximum", "minimum",
// or @ (matmul, tensors only).
Result<ExprValue> apply_operator(TensorGraphBuilder& builder, std::string_view op, ExprValue x, ExprValue y);

// -x.
Result<ExprValue> negate(TensorGraphBuilder& builder, ExprValue x);

// A keyword argument: a value, a shape written as a tuple (text) or an array (JSON), or a
// list of strings (files=).
struct KeywordArgument {
  std::string name;
  std::optional<ExprValue> value;
  std::optional<Shape> shape;
  std::optional<std::vector<std::string>> names;
};

// The named functions of both forms: rand(seed=, shape=, chunk=), full(value=, shape=,
// chunk=), ones/zeros(shape=, chunk=), input(shape=, chunk=, files=), sum/mean/max/min(x,
// axis=), matmul(x, y), transpose(x), add/sub/mul/div(x, y), less/less_equal/greater/
// greater_equal/equal/not_equal(x, y), maximum/minimum(x, y), neg(x). Positional
// arguments come first; `axis` may also be the second positional argument of a reduction.
Result<ExprValue> call_function(TensorGraphBuilder& builder, const std::string& name,
                                std::vector<ExprValue> args, const std::vector<KeywordArgument>& keywords);

// A number that must be a whole value in [low, high] ("axis", "seed", shape extents).
Result<int64_t> whole_number(double value, int64_t low, int64_t high, const std::string& what);

}  // namespace tharsis::operand
