// Chunk kernels: exact, deterministic double arithmetic for each StepKind (fixed
// summation order, no parallelism), so every host computes bit-identical outputs and
// redundant results agree. Used by the operand app, the local executor and the direct
// evaluator alike.
#pragma once

#include <vector>

#include "lib/operand/chunk_graph.h"
#include "lib/operand/nd_array.h"
#include "lib/result.h"

namespace tharsis::operand {

// x op y for one element, as the elementwise and scalar kernels compute it (comparisons
// give 1.0 or 0.0; maximum/minimum keep NaN as numpy does). The expression language folds
// number-number arithmetic with it, so a folded constant equals the computed one.
double apply_step(StepKind kind, double x, double y);

// Runs one step; checks the input count and shapes and that the output has step.shape.
Result<NdArray> run_step(const OperandStep& step, const std::vector<const NdArray*>& inputs);

// Runs a step sequence: steps[0] on `inputs`, each later step on the previous output.
Result<NdArray> run_steps(const std::vector<OperandStep>& steps, const std::vector<const NdArray*>& inputs);

}  // namespace tharsis::operand
