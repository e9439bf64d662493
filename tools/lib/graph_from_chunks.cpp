// Implementation of tools/lib/graph_from_chunks.h.
#include "tools/lib/graph_from_chunks.h"

#include "db/host_store.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/operand_spec.h"
#include "lib/operand/placement.h"
#include "lib/operand/priority.h"

namespace tharsis {

std::vector<OperandSubmission> operands_from_chunks(const operand::ChunkGraph& chunks,
                                                    const std::vector<int64_t>& hosts) {
  std::vector<int> priorities = operand::operand_priorities(chunks);
  std::map<int64_t, int64_t> placement = operand::place_sources(chunks, hosts);
  std::vector<OperandSubmission> out;
  for (const auto& chunk : chunks.operands) {
    OperandSubmission o;
    o.name = std::to_string(chunk.id) + ":" + chunk.label;
    if (chunk.is_input()) {
      o.input_file = chunk.steps[0].file;
      o.input_shape = chunk.shape;
    } else {
      o.spec = operand::format_operand_spec(operand::make_operand_spec(chunk));
    }
    for (int64_t input : chunk.inputs) o.inputs.push_back(static_cast<int>(input));
    o.depth = chunk.depth;
    o.priority = priorities[static_cast<size_t>(chunk.id)];
    o.output_bytes = chunk.output_bytes();
    if (auto it = placement.find(chunk.id); it != placement.end()) o.preferred_host = it->second;
    out.push_back(std::move(o));
  }
  for (size_t k = 0; k < chunks.result_chunks.size(); ++k) {
    out[static_cast<size_t>(chunks.result_chunks[k].operand)].result_chunk = static_cast<int>(k);
  }
  return out;
}

Result<int64_t> submit_expression(Database& db, const ProjectConfig& config, const std::string& name,
                                  const std::string& expression, const JobSpec& job,
                                  const std::vector<int64_t>& hosts, int64_t prefer_seconds, int64_t now) {
  auto compiled = operand::compile_graph(expression);
  if (!compiled.ok()) return make_error("submit_graph: " + compiled.error());
  GraphSubmission graph;
  graph.name = name;
  graph.expression = expression;
  graph.job = job;
  graph.prefer_seconds = prefer_seconds;
  return submit_chunk_graph(db, config, std::move(graph), compiled->chunks, hosts, now);
}

Result<int64_t> submit_chunk_graph(Database& db, const ProjectConfig& config, GraphSubmission graph,
                                   const operand::ChunkGraph& chunks, const std::vector<int64_t>& hosts,
                                   int64_t now) {
  graph.operands = operands_from_chunks(chunks, hosts);
  return submit_graph(db, config, graph, now);
}

std::vector<int64_t> active_host_ids(Database& db, int64_t since) {
  return fetch_host_ids_active_since(db, since);
}

int64_t chunk_index_of(const std::string& operand_name) {
  size_t colon = operand_name.find(':');
  if (colon == std::string::npos || colon == 0 || colon > 18) return -1;
  int64_t n = 0;
  for (size_t i = 0; i < colon; ++i) {
    if (operand_name[i] < '0' || operand_name[i] > '9') return -1;
    n = n * 10 + (operand_name[i] - '0');
  }
  return n;
}

}  // namespace tharsis
