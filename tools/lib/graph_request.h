// The one path from a submitter's operand graph to the database, shared by
// tools/submit_graph (on the server, with config.xml) and submit_rpc's submit_graph
// (remote, authenticated; sched/lib/submit/graph_operations.h): the app by name, the
// compilation under the operand limit, the job parameters checked — all before anything
// is written — then create_work's one-output template for the app, source placement over
// the hosts active in the last day, and graph_submit.h's single transaction with the
// owner recorded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/result.h"
#include "lib/work/create_work.h"

namespace tharsis {

// The job parameters a graph's operands get unless the submitter says otherwise: quorum 1
// of 1, at most 3 error and 10 total results, an hour to report, 1e9 FLOPs estimated.
JobSpec default_graph_job();

struct GraphRequest {
  std::string name;        // unique, letters digits _ - . ; "" = graph_<user>_<time>_<random>
  std::string expression;  // the expression language, or the JSON graph (text starting '{')
  std::string app_name = "operand";
  int64_t user_id = 0;                // the owner (0: an admin on the server)
  JobSpec job = default_graph_job();  // quorum, bounds, delay, FLOPs; app and template filled in
  int64_t prefer_seconds = 60;
  // Chunk operands after fusion (0: only tiling's own bound). Tiling itself stops at ten
  // times this many unfused operands, so a huge request costs little before it is refused.
  size_t max_operands = 0;
};

struct SubmittedGraph {
  int64_t id = 0;
  std::string name;
  int64_t operands = 0;
};

// Errors (nothing written): no such app, a malformed expression or JSON graph (the
// parser's message, with line and column or JSON path), more operands than
// max_operands, bad job parameters, a graph name that is unsafe or taken.
Result<SubmittedGraph> submit_graph_request(Database& db, const ProjectConfig& config,
                                            const GraphRequest& request, int64_t now);

}  // namespace tharsis
