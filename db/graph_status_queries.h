// Read-only queries behind the graphs status page (tables graph, operand,
// operand_dependency, assimilation). They fill the status model's plain structs; progress
// and the staged-data curve are derived by lib/web/graph_progress.h. Every query is served
// by an index: graph's primary key, operand_graph_state (graph_id, state),
// operand_dependency's primary key (successor_id, ...) and assimilation's primary key.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "db/database.h"
#include "db/status_rows.h"

namespace tharsis {

// The newest `limit` graphs, highest id first, with their state and operand counts by
// state (progress left for the caller).
std::vector<GraphSummary> fetch_graph_summaries(Database& db, int limit);

int64_t count_graphs(Database& db);

// One graph with every operand (label = its name; ordered by depth, then id), each
// operand's predecessors, output size, assimilation time and, when FREED, the time it was
// freed; nullopt when there is no such graph. Staged data is left for the caller.
std::optional<GraphDetail> fetch_graph_detail(Database& db, int64_t graph_id);

}  // namespace tharsis
