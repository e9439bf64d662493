// graphs: the submitters' operand-graph pages as a CGI program.
//   (no parameters)  the newest graphs with operand counts by state and progress
//   ?id=N            one graph: its DAG coloured by operand state and the data staged over time
// Reads the DB read-only (lib/web/status_cgi.h); an unknown id gets 404.
#include <cstdint>
#include <memory>

#include "db/graph_status_queries.h"
#include "db/graph_store.h"
#include "lib/web/graph_progress.h"
#include "lib/web/graphs_render.h"
#include "lib/web/status_cgi.h"

using namespace tharsis;

namespace {

constexpr int kGraphsListed = 100;

CgiResponse handle(const StatusRequest& request) {
  CgiResponse response;
  auto db = Database::open(request.db);
  if (request.params.has("id")) {
    auto id = request.params.get_int("id", 1, INT32_MAX);
    if (!id) return cgi_error_response(400, id.error());
    auto graph = fetch_graph_detail(*db, *id);
    if (!graph) return cgi_error_response(404, "no graph with id " + std::to_string(*id));
    graph->staged_data = staged_data_series(graph->operands);
    graph->staged_bytes_now = staged_output_bytes(*db, *id);
    response.body = render_graph_detail_html(*graph, request.context);
    return response;
  }
  std::vector<GraphSummary> graphs = fetch_graph_summaries(*db, kGraphsListed);
  for (auto& graph : graphs) graph.progress = graph_progress(graph.operands_by_state);
  const int64_t total = graphs.size() < static_cast<size_t>(kGraphsListed) ? -1 : count_graphs(*db);
  response.body = render_graphs_list_html(graphs, request.context, total);
  return response;
}

}  // namespace

int main() { return status_cgi_main("graphs", handle); }
