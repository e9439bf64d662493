// The submitters' graph pages: the list of operand graphs with per-state operand counts and
// a progress bar, and one graph's DAG as inline SVG coloured by operand state, with the
// staged-data curve (bytes of operand output held on the server over time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "db/status_rows.h"
#include "lib/web/page.h"

namespace tharsis {

inline constexpr size_t kMaxDrawnOperands = 400;

// Rows link to "<graphs page>?id=N". `total`: graphs in the DB, when more than those shown.
std::string render_graphs_list_html(const std::vector<GraphSummary>& graphs, const PageContext& context,
                                    int64_t total = -1);

// The DAG (one node per operand, column = depth, fill = state colour, legend of states
// present; only up to kMaxDrawnOperands, beyond that a note) plus the staged-data chart.
std::string render_graph_detail_html(const GraphDetail& graph, const PageContext& context);

// Just the DAG's SVG (used by the page above; exposed for tests and embedding).
std::string render_graph_dag_svg(const GraphDetail& graph);

}  // namespace tharsis
