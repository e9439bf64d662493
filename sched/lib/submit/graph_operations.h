// Tharsis's operand-graph operations over the submit RPC transport
// (docs/remote_submission.md#operand-graphs-and-clustered-tasks): submit_graph,
// query_graph, query_graphs, get_graph_output, abort_graph. Each runs the same library
// code as its command-line tool (tools/lib/graph_request.h, graph_result.h,
// daemons/graph_scheduler/lib/graph_cancel.h); this layer only authenticates, reads the
// request's fields and renders the reply. submit_graph needs a grant for the app; the
// others touch only graphs the account owns (graph.user_id).
#pragma once

#include <cstdint>
#include <string>

#include "sched/lib/submit/submit_session.h"

namespace tharsis {

// A graph's result is returned inside get_graph_output's reply (base64) only up to this
// size; larger ones are fetched from get_output.php?cmd=graph_output.
inline constexpr int64_t kMaxInlineGraphOutputBytes = 1 << 20;

Result<std::string> submit_graph_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> query_graph_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> query_graphs_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> get_graph_output_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> abort_graph_operation(SubmitDocument& doc, SubmitSession& session);

// get_output.php's auth_str for a graph's result: md5(authenticator + "graph" + id).
std::string graph_output_auth(const std::string& authenticator, int64_t graph_id);

}  // namespace tharsis
