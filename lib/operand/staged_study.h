// The staged-data study (seed: "Operand selection strategy", tree reduction figure): one
// tree reduction run in depth-first priority order and in breadth-first order, counting
// the peak number of staged chunks (produced, not yet freed) for each.
#pragma once

#include <cstdint>

#include "lib/result.h"

namespace tharsis::operand {

struct StagedStudyConfig {
  int64_t leaves = 64;  // chunks reduced
  int fan_in = 4;       // AddN inputs per tree node
  int workers = 2;      // hosts running operands at once
};

struct StagedStudyResult {
  int64_t operands = 0;  // in the fused graph
  int64_t depth_first_peak = 0;
  int64_t breadth_first_peak = 0;
};

// An error when the configuration makes no tree (leaves < 2, fan-in < 2, workers < 1).
Result<StagedStudyResult> run_staged_study(const StagedStudyConfig& config);

}  // namespace tharsis::operand
