// Writing an operand graph into the database (the core of tools/submit_graph): the graph
// row, one operand per chunk operand, each with its first run as a held workunit (no
// results until its inputs are ready; see daemons/graph_scheduler/lib/operand_jobs.h),
// and the dependency edges — all in one transaction. The graph scheduler daemon takes it
// from there: operands without inputs become READY at its next pass. A chunk the submitter
// uploaded (an input tensor) is no job: its operand is created FINISHED, its output the
// file in download/ (see is_uploaded_chunk in graph_scheduler_rules.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/operand/nd_array.h"
#include "lib/result.h"
#include "lib/work/create_work.h"

namespace tharsis {

struct OperandSubmission {
  std::string name;         // unique in the graph, e.g. "add[0,1]"
  std::string spec;         // the operand spec file the app runs
  std::vector<int> inputs;  // indices of earlier operands, in input order (in0, in1, ...)
  int depth = 0;
  int priority = 0;            // higher is dispatched first (greater depth, more dependents, smaller output)
  int64_t output_bytes = 0;    // estimate
  int64_t preferred_host = 0;  // initial placement (0: any host)
  int result_chunk = -1;       // position among the graph's result chunks, or -1
  // An uploaded chunk: "jf_<md5>" in download/, a .npy of input_shape. Such an operand has
  // no inputs and no spec; it is created FINISHED with no workunit.
  std::string input_file = "";
  operand::Shape input_shape = {};
};

struct GraphSubmission {
  std::string name;  // unique; a safe file name (letters, digits, '_', '-', '.')
  std::string expression;
  std::string result_path;
  std::vector<OperandSubmission> operands;  // topological order: inputs refer to earlier entries
  JobSpec job;                              // app, output template, quorum, bounds (name/inputs unused)
  int64_t prefer_seconds = 60;              // how long an initial placement holds
  int64_t user_id = 0;                      // the owner (0: an admin on the server)
};

// A graph name is 1..200 letters, digits, '_', '-', '.'; the error says what was found.
Status check_graph_name(const std::string& name);

// Errors: unsafe or duplicate graph name, duplicate operand names, an input that is not an
// earlier operand, no operands, an uploaded chunk missing from download/, its content not
// matching the md5 in its name, or not a '<f8' .npy of its chunk's shape.
Result<int64_t> submit_graph(Database& db, const ProjectConfig& config, const GraphSubmission& graph,
                             int64_t now);

}  // namespace tharsis
