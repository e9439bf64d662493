// The direct computation a graph's answer is checked against: every tensor node evaluated
// whole, without chunks, by the same kernels on full arrays.
#pragma once

#include "lib/operand/nd_array.h"
#include "lib/operand/tensor_graph.h"
#include "lib/result.h"

namespace tharsis::operand {

// Uploaded tensors are put together from their chunks in `uploaded`.
Result<NdArray> evaluate_directly(const TensorGraph& graph, const InputChunks& uploaded = {});

// Largest |a-b| / max(|a|,|b|,tiny) over the elements; an error when shapes differ.
Result<double> max_relative_difference(const NdArray& a, const NdArray& b);

}  // namespace tharsis::operand
