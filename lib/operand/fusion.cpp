#include "lib/operand/fusion.h"

namespace tharsis::operand {

ChunkGraph fuse_chains(const ChunkGraph& graph) {
  const auto successors = successors_of(graph);
  const size_t n = graph.operands.size();
  // head[v]: the first operand of v's chain. v joins its input's chain when it has exactly
  // one input and that input feeds nothing else — unless the input is an uploaded chunk,
  // which is a file, never a job (ChunkOperand::is_input).
  std::vector<int64_t> head(n);
  std::vector<int64_t> tail(n);  // for heads: the chain's last operand so far
  for (size_t v = 0; v < n; ++v) {
    const ChunkOperand& operand = graph.operands[v];
    head[v] = static_cast<int64_t>(v);
    if (operand.inputs.size() == 1) {
      const auto u = static_cast<size_t>(operand.inputs[0]);
      if (successors[u].size() == 1 && !graph.operands[u].is_input()) head[v] = head[u];
    }
    tail[static_cast<size_t>(head[v])] = static_cast<int64_t>(v);
  }

  ChunkGraph fused;
  fused.result_shape = graph.result_shape;
  std::vector<int64_t> new_id(n, -1);
  for (size_t v = 0; v < n; ++v) {
    if (head[v] != static_cast<int64_t>(v)) continue;
    new_id[v] = static_cast<int64_t>(fused.operands.size());
    ChunkOperand operand;
    operand.id = new_id[v];
    operand.inputs = graph.operands[v].inputs;  // remapped below, once every id is known
    fused.operands.push_back(std::move(operand));
  }
  std::vector<std::vector<std::string>> labels(fused.operands.size());
  for (size_t v = 0; v < n; ++v) {
    const ChunkOperand& original = graph.operands[v];
    const auto h = static_cast<size_t>(head[v]);
    ChunkOperand& target = fused.operands[static_cast<size_t>(new_id[h])];
    target.steps.insert(target.steps.end(), original.steps.begin(), original.steps.end());
    target.shape = original.shape;
    labels[static_cast<size_t>(new_id[h])].push_back(original.label);
  }
  for (ChunkOperand& operand : fused.operands) {
    // A head's inputs are tails of other chains (a chain member's input is inside its chain).
    for (int64_t& input : operand.inputs)
      input = new_id[static_cast<size_t>(head[static_cast<size_t>(input)])];
    const auto& parts = labels[static_cast<size_t>(operand.id)];
    // Head and tail only: the head alone makes the label unique, and a long chain must
    // not make it long (labels name operands in the DB).
    if (parts.size() == 1) {
      operand.label = parts[0];
    } else if (parts.size() == 2) {
      operand.label = "fuse(" + parts[0] + "," + parts[1] + ")";
    } else {
      operand.label = "fuse(" + parts[0] + ",+" + std::to_string(parts.size() - 2) + "," + parts.back() + ")";
    }
  }
  for (const ResultChunk& chunk : graph.result_chunks) {
    fused.result_chunks.push_back(
        {new_id[static_cast<size_t>(head[static_cast<size_t>(chunk.operand)])], chunk.offset});
  }
  assign_depths(fused);
  return fused;
}

}  // namespace tharsis::operand
