// The JSON form of a submission, for programs that generate graphs:
//
//   {"tensors": {"a": {"op": "rand", "seed": 1, "shape": [400,400], "chunk": [100,100]},
//                "b": {"op": "rand", "seed": 2, "shape": [400,400], "chunk": [100,100]}},
//    "result": {"op": "sum", "args": [{"op": "add", "args": ["a", "b"]}]}}
//
// A node is {"op": NAME, "args": [...], other keys = keyword arguments}; an argument is
// a node, a number, or the name of an earlier tensor. NAME is any function of the
// expression language (expression_values.h); "shape" and "chunk" are arrays of extents,
// "files" (input) an array of chunk file names:
//   {"op": "input", "shape": [4, 6], "chunk": [2, 6], "files": ["jf_<md5>", "jf_<md5>"]}
// "tensors" is optional; "result" is a node or a name. Errors give the JSON path
// ("tensors.c.args[1]").
#pragma once

#include <string>

#include "lib/operand/tensor_graph.h"
#include "lib/result.h"

namespace tharsis::operand {

Result<TensorGraph> parse_expression_json(const std::string& text);

}  // namespace tharsis::operand
