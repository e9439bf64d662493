// The expression language submitters write (and its JSON form, expression_json.h):
//
//   a = rand(seed=1, shape=(400,400), chunk=(100,100));
//   b = rand(seed=2, shape=(400,400), chunk=(100,100));
//   result = (a + b).sum()
//
// Statements are `name = expr` separated by ';' or newlines; the graph's value is
// `result`, or the last statement when it is a bare expression. Expressions: numbers,
// names, + - * / (tensor-tensor elementwise with numpy broadcasting, or with a number),
// comparisons < <= > >= == != (1 or 0; they bind loosest and do not chain), unary -, @
// (matmul), parentheses, calls rand(seed=, shape=, chunk=), ones/zeros(shape=, chunk=),
// full(value=, shape=, chunk=), input(shape=, chunk=, files=("jf_...", ...)),
// sum/mean/max/min(x[, axis=]), maximum/minimum(x, y), matmul(x, y), transpose(x) (all of
// expression_values.h), and methods x.sum(axis=), x.mean(), x.max(), x.min(), x.T,
// x.transpose(), x.dot(y). '#' starts a comment. Errors give line and column.
#pragma once

#include <string>

#include "lib/operand/tensor_graph.h"
#include "lib/result.h"

namespace tharsis::operand {

Result<TensorGraph> parse_expression(const std::string& text);

}  // namespace tharsis::operand
