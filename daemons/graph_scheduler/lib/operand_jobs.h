// How an operand becomes workunits (docs/operand_graphs.md). Each run of an operand is one workunit
// named "g<graph>_op<operand>_r<run>", created held (transition_time = never, no results)
// so it stays UNSCHEDULED until its inputs are ready. Its input files, as the operand app
// opens them:
//   "spec"           the operand spec (operand.spec), <workunit name>.spec, described in
//                    the held workunit and written to download/ only when the operand
//                    becomes READY (a graph of 10,000 operands writes no file at submission);
//   "in0".."in<k-1>" the predecessors' outputs in operand_dependency.input_index order,
//                    staged when the operand becomes READY as <producer output name>.in;
// and one output file, "out" (the output template), which becomes the operand's output.
#pragma once

#include <cstdint>
#include <string>

#include "db/database.h"
#include "db/rows.h"
#include "lib/config/project_config.h"
#include "lib/result.h"
#include "lib/work/create_work.h"

namespace tharsis {

std::string operand_workunit_name(int64_t graph_id, int64_t operand_id, int run);

// The next run of `operand` as a held workunit ready to insert, built with parameters
// like `params`; its spec is described, not written (promote_ready writes it). No database
// or file access.
Result<PreparedWorkunit> prepare_operand_run(const ProjectConfig& config, const OperandRow& operand,
                                             const JobSpec& params, int64_t now);

// Creates the next run of `operand` as a held workunit with parameters like `params`
// (app, template, quorum, bounds, priority), inside the caller's transaction. Returns
// the operand as it should be written: runs + 1, workunitid = the new workunit,
// UNSCHEDULED, output fields cleared, state_time = now.
Result<OperandRow> create_operand_run(Database& db, const ProjectConfig& config, const OperandRow& operand,
                                      const JobSpec& params, int64_t now);

// The JobSpec of an existing workunit's parameters (inputs not included).
JobSpec job_parameters_of(const WorkunitRow& wu);

}  // namespace tharsis
