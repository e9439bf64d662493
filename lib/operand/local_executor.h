// Runs a whole chunk graph in memory in a caller-given order, with no database: the
// reference for the distributed run and the engine of the staged-data study. An output
// is staged from the moment its operand runs until every successor has run (then freed,
// as FREED does on the server); result chunks stay staged to the end.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/operand/chunk_graph.h"
#include "lib/operand/nd_array.h"
#include "lib/result.h"

namespace tharsis::operand {

struct LocalRun {
  NdArray result;
  int64_t peak_staged_chunks = 0;  // most outputs held at once
};

// `order` must list every operand once, each after its predecessors; otherwise an error
// names the first operand out of place. An uploaded chunk's operand takes its array from
// `uploaded` (an error names a missing or mis-shaped one).
Result<LocalRun> run_locally(const ChunkGraph& graph, const std::vector<int64_t>& order,
                             const InputChunks& uploaded = {});

// Only the staging count of running in `order` (no arithmetic), for large studies.
Result<int64_t> peak_staged_chunks(const ChunkGraph& graph, const std::vector<int64_t>& order);

// Ascending ids: a valid order for any graph (ids are topological).
std::vector<int64_t> id_order(const ChunkGraph& graph);

}  // namespace tharsis::operand
