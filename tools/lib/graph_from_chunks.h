// From a compiled chunk graph (lib/operand/graph_compiler.h) to what submit_graph writes:
// one OperandSubmission per chunk operand in id order (so operand i of the graph is chunk
// operand i; its name is "<i>:<label>"), the operand spec file it runs, its inputs, depth,
// priority (lib/operand/priority.h) and output size, the initial host of each source
// operand from Mars's DFS placement over `hosts` (lib/operand/placement.h), and the
// result chunks' positions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/operand/chunk_graph.h"
#include "tools/lib/graph_submit.h"

namespace tharsis {

std::vector<OperandSubmission> operands_from_chunks(const operand::ChunkGraph& chunks,
                                                    const std::vector<int64_t>& hosts);

// Fills `graph.operands` from `chunks` (sources placed over `hosts`) and submits it
// (graph_submit.h). Returns the graph id.
Result<int64_t> submit_chunk_graph(Database& db, const ProjectConfig& config, GraphSubmission graph,
                                   const operand::ChunkGraph& chunks, const std::vector<int64_t>& hosts,
                                   int64_t now);

// Compiles `expression` (lib/operand/graph_compiler.h) and submits it as graph `name`
// with the job parameters of `job` (app, output template, quorum, bounds), sources placed
// over `hosts`. Returns the graph id; errors from the parser or submit_graph.
Result<int64_t> submit_expression(Database& db, const ProjectConfig& config, const std::string& name,
                                  const std::string& expression, const JobSpec& job,
                                  const std::vector<int64_t>& hosts, int64_t prefer_seconds, int64_t now);

// Hosts that made a scheduler RPC since `since`, by id (the "active hosts" of placement).
std::vector<int64_t> active_host_ids(Database& db, int64_t since);

// The chunk operand index an operand's name starts with ("12:add[0,1]" -> 12), or -1.
int64_t chunk_index_of(const std::string& operand_name);

}  // namespace tharsis
