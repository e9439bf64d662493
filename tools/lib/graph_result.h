// Reading a graph back (tools/submit_graph --wait, tools/graph_status): progress from the
// operand states, and the result tensor put together from the result chunks the
// assimilator stored (<project>/results/<workunit>/, see results_store.h). The chunk
// graph is compiled again from the stored expression — compilation is deterministic — so
// chunk operand i is the graph's i-th operand (tools/lib/graph_from_chunks.h).
#pragma once

#include <cstdint>
#include <map>

#include "db/database.h"
#include "db/rows.h"
#include "db/state_names.h"
#include "lib/config/project_config.h"
#include "lib/operand/nd_array.h"
#include "lib/result.h"

namespace tharsis {

struct GraphProgress {
  GraphRow graph;
  std::map<OperandState, int64_t> operands_by_state;
  int64_t total = 0;
  int64_t finished = 0;        // FINISHED or FREED
  int64_t staged_bytes = 0;    // outputs the server holds for successors (FINISHED operands)
  std::string failure_reason;  // FAILED: which operand failed and why; CANCELLED: "cancelled"; else ""
  double fraction() const {
    return total > 0 ? static_cast<double>(finished) / static_cast<double>(total) : 0;
  }
};

Result<GraphProgress> graph_progress(Database& db, int64_t graph_id);

// "too many error results, cancelled" — the workunit.error_mask bits in words.
std::string error_mask_words(int error_mask);

// "[#####.....]  12/40 operands  running" — one line for a terminal.
std::string progress_line(const GraphProgress& progress, int width = 40);

// The result of a DONE graph. Errors: no such graph, not DONE, a chunk missing, or (with
// max_bytes > 0) a result larger than max_bytes — checked from the operand rows before
// any chunk is read.
Result<operand::NdArray> collect_graph_result(Database& db, const ProjectConfig& config, int64_t graph_id,
                                              int64_t max_bytes = 0);
// The same as the bytes of a .npy file (what submit_graph --wait writes).
Result<std::string> graph_result_npy(Database& db, const ProjectConfig& config, int64_t graph_id,
                                     int64_t max_bytes);

}  // namespace tharsis
