// What the graph pages derive from graph and operand rows, as pure functions: the
// graph's progress from its operand counts, and the data staged on the server over
// time (docs/operand_graphs.md: an output is held from when its operand FINISHES until it is FREED,
// i.e. until its last successor finished).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "db/status_rows.h"

namespace tharsis {

// (FINISHED + FREED) / total; 0 for no operands.
double graph_progress(const std::map<OperandState, int64_t>& operands_by_state);

// Bytes held over time, as a step curve ordered by time: each operand adds its output at
// finish_time and, once FREED, removes it at freed_time. Operands without a finish_time
// contribute nothing.
std::vector<StagedDataPoint> staged_data_series(const std::vector<OperandNode>& operands);

}  // namespace tharsis
