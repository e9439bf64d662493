#include "lib/operand/graph_evaluation.h"

#include <cmath>

#include "lib/operand/direct_evaluator.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/local_executor.h"
#include "lib/operand/npy.h"

namespace tharsis::operand {

Result<GraphEvaluation> evaluate_graph(const std::string& text, const std::string& chunks_dir,
                                       const TileOptions& options) {
  auto compiled = compile_graph(text, options);
  if (!compiled.ok()) return Error{compiled.error()};
  InputChunks uploaded;
  for (const ChunkOperand& operand : compiled->chunks.operands) {
    if (!operand.is_input() || uploaded.count(operand.steps[0].file)) continue;
    auto array = read_npy(chunks_dir + "/" + operand.steps[0].file);
    if (!array.ok()) return Error{array.error()};
    uploaded[operand.steps[0].file] = std::move(*array);
  }
  auto chunked = run_locally(compiled->chunks, id_order(compiled->chunks), uploaded);
  if (!chunked.ok()) return Error{chunked.error()};
  auto direct = evaluate_directly(compiled->tensors, uploaded);
  if (!direct.ok()) return Error{direct.error()};
  auto difference = max_relative_difference(chunked->result, *direct);
  if (!difference.ok()) return Error{difference.error()};
  for (size_t i = 0; i < direct->data.size(); ++i) {
    if (std::isnan(direct->data[i]) != std::isnan(chunked->result.data[i])) {
      return make_error("element " + std::to_string(i) +
                        " is NaN in only one of the chunked and direct results");
    }
  }
  GraphEvaluation out;
  out.result = std::move(chunked->result);
  out.max_difference = *difference;
  out.operands = static_cast<int64_t>(compiled->chunks.operands.size());
  out.uploaded_chunks = static_cast<int64_t>(uploaded.size());
  return out;
}

}  // namespace tharsis::operand
