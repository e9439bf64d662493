// A whole submission computed on one machine, with no project: parse, tile, fuse, run the
// chunk graph in memory (local_executor.h) and evaluate it directly (direct_evaluator.h),
// the two compared. tools/graph_eval runs it for the Python package's LocalSession and
// its tests, so what a client builds is checked by the very code the volunteers run.
#pragma once

#include <cstdint>
#include <string>

#include "lib/operand/nd_array.h"
#include "lib/operand/tiling.h"
#include "lib/result.h"

namespace tharsis::operand {

struct GraphEvaluation {
  NdArray result;             // the chunked run's
  double max_difference = 0;  // largest relative difference from the direct evaluation
  int64_t operands = 0;       // chunk operands after fusion
  int64_t uploaded_chunks = 0;
};

// `text`: the expression language or the JSON graph. Uploaded chunks are read from
// `chunks_dir`/<name> (names are jf_<md5>, so they stay inside it). Errors: the
// compiler's, a missing or malformed chunk file, a run's, or NaN in one result where the
// other has a number.
Result<GraphEvaluation> evaluate_graph(const std::string& text, const std::string& chunks_dir,
                                       const TileOptions& options = {});

}  // namespace tharsis::operand
