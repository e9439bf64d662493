// Implementation of tools/lib/graph_result.h.
#include "tools/lib/graph_result.h"

#include "daemons/assimilator/lib/results_store.h"
#include "daemons/graph_scheduler/graph_scheduler_rules.h"
#include "db/graph_store.h"
#include "db/state_names.h"
#include "db/workunit_store.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/npy.h"
#include "lib/work/fanout.h"
#include "tools/lib/graph_from_chunks.h"

namespace tharsis {

Result<GraphProgress> graph_progress(Database& db, int64_t graph_id) {
  auto graph = fetch_graph(db, graph_id);
  if (!graph) return make_error("no graph " + std::to_string(graph_id));
  GraphProgress p;
  p.graph = *graph;
  p.operands_by_state = count_operand_states(db, graph_id);
  for (const auto& [state, n] : p.operands_by_state) {
    p.total += n;
    if (state == OperandState::Finished || state == OperandState::Freed) p.finished += n;
  }
  p.staged_bytes = staged_output_bytes(db, graph_id);
  if (graph->state == GraphState::Failed) {
    // The graph scheduler fails a graph when an operand's job ends in error, or when a
    // chunk the submitter uploaded is lost (it cannot be computed again): FATAL.
    auto fatal = fetch_first_operand_in_state(db, graph_id, OperandState::Fatal);
    auto wu = fatal && fatal->workunitid != 0 ? fetch_workunit(db, fatal->workunitid) : std::nullopt;
    if (!fatal) {
      p.failure_reason = "an operand failed";
    } else if (is_uploaded_chunk(*fatal)) {
      p.failure_reason = "operand " + fatal->name + " failed: its uploaded chunk " + fatal->output_file +
                         " is gone from the server (upload it again and resubmit)";
    } else {
      p.failure_reason = "operand " + fatal->name + " failed: its job " + (wu ? wu->name : "?") +
                         " ended in error (" + error_mask_words(wu ? wu->error_mask : 0) + ")";
    }
  } else if (graph->state == GraphState::Cancelling || graph->state == GraphState::Cancelled) {
    p.failure_reason = "cancelled";
  }
  return p;
}

std::string error_mask_words(int error_mask) {
  static constexpr std::pair<int, const char*> kBits[] = {
      {kWuErrorCouldntSendResult, "couldn't send a result"},
      {kWuErrorTooManyErrorResults, "too many error results"},
      {kWuErrorTooManySuccessResults, "too many success results without agreement"},
      {kWuErrorTooManyTotalResults, "too many total results"},
      {kWuErrorCancelled, "cancelled"},
  };
  std::string words;
  for (const auto& [bit, text] : kBits) {
    if ((error_mask & bit) != 0) words += (words.empty() ? "" : ", ") + std::string(text);
  }
  return words.empty() ? "error mask " + std::to_string(error_mask) : words;
}

std::string progress_line(const GraphProgress& progress, int width) {
  int filled = static_cast<int>(progress.fraction() * width + 0.5);
  return "[" + std::string(static_cast<size_t>(filled), '#') +
         std::string(static_cast<size_t>(width - filled), '.') + "] " + std::to_string(progress.finished) +
         "/" + std::to_string(progress.total) + " operands  " + graph_state_name(progress.graph.state);
}

Result<operand::NdArray> collect_graph_result(Database& db, const ProjectConfig& config, int64_t graph_id,
                                              int64_t max_bytes) {
  auto graph = fetch_graph(db, graph_id);
  if (!graph) return make_error("no graph " + std::to_string(graph_id));
  if (graph->state != GraphState::Done) {
    return make_error("graph " + std::to_string(graph_id) + " is " + graph_state_name(graph->state) +
                      ", not done");
  }
  auto compiled = operand::compile_graph(graph->expression);
  if (!compiled.ok()) return make_error("graph " + std::to_string(graph_id) + ": " + compiled.error());
  if (int64_t bytes = result_chunk_bytes(db, graph_id); max_bytes > 0 && bytes > max_bytes) {
    return make_error("graph " + std::to_string(graph_id) + ": the result of " + std::to_string(bytes) +
                      " bytes is over the limit of " + std::to_string(max_bytes) + " bytes here");
  }
  std::map<int64_t, OperandRow> operand_of_chunk;
  for (auto& o : fetch_operands_of_graph(db, graph_id))
    operand_of_chunk[chunk_index_of(o.name)] = std::move(o);
  const std::string store = config.project_dir + "/results";
  std::map<int64_t, operand::NdArray> outputs;
  for (const auto& chunk : compiled->chunks.result_chunks) {
    const OperandRow& row = operand_of_chunk[chunk.operand];
    if (is_uploaded_chunk(row)) {  // a result chunk the submitter uploaded, returned as it is
      auto array =
          operand::read_npy(fanout_path(config.download_dir, row.output_file, config.uldl_dir_fanout));
      if (!array.ok()) return make_error(array.error());
      outputs[chunk.operand] = std::move(*array);
      continue;
    }
    auto wu = fetch_workunit(db, row.workunitid);
    if (!wu)
      return make_error("graph " + std::to_string(graph_id) + ": no workunit for chunk " +
                        std::to_string(chunk.operand));
    auto manifest = read_manifest(store, wu->name);
    if (!manifest.ok() || manifest->empty()) {
      return make_error("graph " + std::to_string(graph_id) + ": result chunk " +
                        std::to_string(chunk.operand) + " not in the results store (" +
                        (manifest.ok() ? "empty manifest" : manifest.error()) + ")");
    }
    auto array = operand::read_npy(workunit_store_dir(store, wu->name) + "/" + manifest->front().name);
    if (!array.ok()) return make_error(array.error());
    outputs[chunk.operand] = std::move(*array);
  }
  return operand::assemble_result(compiled->chunks, outputs);
}

Result<std::string> graph_result_npy(Database& db, const ProjectConfig& config, int64_t graph_id,
                                     int64_t max_bytes) {
  auto result = collect_graph_result(db, config, graph_id, max_bytes);
  if (!result.ok()) return make_error(result.error());
  return operand::encode_npy(*result);
}

}  // namespace tharsis
