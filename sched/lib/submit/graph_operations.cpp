// Implementation of sched/lib/submit/graph_operations.h.
#include "sched/lib/submit/graph_operations.h"

#include "daemons/graph_scheduler/lib/graph_cancel.h"
#include "db/app_store.h"
#include "db/graph_store.h"
#include "db/state_names.h"
#include "db/status_rows.h"
#include "lib/base64.h"
#include "lib/crypto/md5.h"
#include "sched/lib/submit/submit_access.h"
#include "sched/lib/submit/submit_reply.h"
#include "tools/lib/graph_request.h"
#include "tools/lib/graph_result.h"

namespace tharsis {
namespace {

constexpr int kMaxGraphsListed = 1000;  // query_graphs: the newest this many

// An optional whole number of the request in [min, max] (0 when absent).
Result<int64_t> bounded_integer(const SubmitDocument& doc, const char* element, int64_t min, int64_t max) {
  auto value = optional_integer(doc, element);
  if (!value.ok()) return value;
  if (*value != 0 && (*value < min || *value > max)) {
    return make_error("<" + std::string(element) + ">: expected " + std::to_string(min) + ".." +
                      std::to_string(max) + ", found " + std::to_string(*value));
  }
  return value;
}

// The computation: exactly one of <expression> (the expression language) and
// <graph_json> (the JSON graph, an object).
Result<std::string> graph_text(const SubmitDocument& doc, const SubmitLimits& limits) {
  pugi::xml_node expression = doc.reader->root().child("expression");
  pugi::xml_node json = doc.reader->root().child("graph_json");
  if (!expression == !json) return make_error("expected exactly one of <expression> and <graph_json>");
  const char* element = expression ? "expression" : "graph_json";
  std::string text;
  if (Status s = doc.reader->text(expression ? expression : json, child_path(doc.operation, element),
                                  limits.max_graph_bytes, true, text);
      !s)
    return make_error(s.error());
  if (text.empty()) return make_error(std::string("<") + element + "> is empty");
  if (json && text.front() != '{')
    return make_error("<graph_json>: expected a JSON object, starting with '{'");
  return text;
}

// submit_graph's job parameters over the defaults (absent or 0: the default).
Status read_job_parameters(const SubmitDocument& doc, GraphRequest& request) {
  JobSpec& job = request.job;
  for (auto [element, field] :
       {std::pair{"min_quorum", &job.min_quorum}, std::pair{"target_nresults", &job.target_nresults},
        std::pair{"max_error_results", &job.max_error_results},
        std::pair{"max_total_results", &job.max_total_results}}) {
    auto value = bounded_integer(doc, element, 1, 100);
    if (!value.ok()) return make_error(value.error());
    if (*value != 0) *field = static_cast<int>(*value);
  }
  job.max_success_results = std::max(job.max_success_results, job.min_quorum);
  auto delay = bounded_integer(doc, "delay_bound", 1, 365 * 86400);
  if (!delay.ok()) return make_error(delay.error());
  if (*delay != 0) job.delay_bound = static_cast<int>(*delay);
  auto prefer = bounded_integer(doc, "prefer_seconds", 1, 86400);
  if (!prefer.ok()) return make_error(prefer.error());
  if (*prefer != 0) request.prefer_seconds = *prefer;
  auto fpops = optional_number(doc, "rsc_fpops_est");
  if (!fpops.ok()) return make_error(fpops.error());
  if (*fpops < 0 || *fpops > 1e21) return make_error("<rsc_fpops_est>: expected a number in 0..1e21");
  if (*fpops > 0) job.rsc_fpops_est = *fpops;
  return Status::success();
}

// The account (with a user_submit row) and the graph named by <graph_id>, which it owns.
struct OwnedGraph {
  UserRow user;
  GraphRow graph;
};
Result<OwnedGraph> owned_graph(const SubmitDocument& doc, Database& db) {
  auto user = authenticate_with_grant(doc, db);
  if (!user.ok()) return make_error(user.error());
  auto id = optional_integer(doc, "graph_id");
  if (!id.ok()) return make_error(id.error());
  if (*id <= 0) return make_error("graph not specified (expected <graph_id>)");
  auto graph = fetch_graph(db, *id);
  if (!graph) return make_error("no such graph");
  if (graph->user_id != user->id) return make_error("not owner of graph");
  return OwnedGraph{std::move(*user), std::move(*graph)};
}

// The fields of a <graph> (query_graph and query_graphs).
void add_graph_fields(std::string& out, const GraphRow& g, const std::map<OperandState, int64_t>& counts) {
  int64_t total = 0, finished = 0;
  std::string by_state;
  for (OperandState state : kAllOperandStates) {
    auto found = counts.find(state);
    int64_t n = found == counts.end() ? 0 : found->second;
    total += n;
    if (state == OperandState::Finished || state == OperandState::Freed) finished += n;
    add_field(by_state, operand_state_name(state), n);
  }
  add_field(out, "id", g.id);
  add_field(out, "name", g.name);
  add_field(out, "state", graph_state_name(g.state));
  add_field(out, "create_time", g.create_time);
  add_field(out, "finish_time", g.finish_time);
  add_field(out, "noperands", total);
  add_field(out, "noperands_finished", finished);
  add_field(out, "fraction_done",
            total > 0 ? static_cast<double>(finished) / static_cast<double>(total) : 0.0);
  out += "<operands>\n" + by_state + "</operands>\n";
}

std::string output_url(const ProjectConfig& config, int64_t graph_id, const std::string& authenticator) {
  std::string base = config.master_url;
  if (!base.empty() && base.back() != '/') base += '/';
  return base + "get_output.php?cmd=graph_output&graph_id=" + std::to_string(graph_id) +
         "&auth_str=" + graph_output_auth(authenticator, graph_id);
}

}  // namespace

std::string graph_output_auth(const std::string& authenticator, int64_t graph_id) {
  return md5_hex(authenticator + "graph" + std::to_string(graph_id));
}

Result<std::string> submit_graph_operation(SubmitDocument& doc, SubmitSession& s) {
  GraphRequest request;
  auto app_name = optional_name(doc, "app_name");
  if (!app_name.ok()) return make_error(app_name.error());
  if (!app_name->empty()) request.app_name = *app_name;
  auto app = fetch_app_by_name(s.db, request.app_name);
  if (!app) return make_error("app not found: " + request.app_name);
  auto user = authenticate_for_app(doc, s.db, app->id);
  if (!user.ok()) return make_error(user.error());
  request.user_id = user->id;
  auto name = optional_name(doc, "graph_name");
  if (!name.ok()) return make_error(name.error());
  request.name = *name;
  auto text = graph_text(doc, s.limits);
  if (!text.ok()) return make_error(text.error());
  request.expression = std::move(*text);
  if (Status read = read_job_parameters(doc, request); !read.ok()) return make_error(read.error());
  request.max_operands = s.limits.max_graph_operands;
  auto submitted = submit_graph_request(s.db, s.config, request, s.now);
  if (!submitted.ok()) return make_error(submitted.error());
  std::string out;
  add_field(out, "graph_id", submitted->id);
  add_field(out, "name", submitted->name);
  add_field(out, "operand_count", submitted->operands);
  return out;
}

Result<std::string> query_graph_operation(SubmitDocument& doc, SubmitSession& s) {
  auto owned = owned_graph(doc, s.db);
  if (!owned.ok()) return make_error(owned.error());
  auto progress = graph_progress(s.db, owned->graph.id);
  if (!progress.ok()) return make_error(progress.error());
  std::string out = "<graph>\n";
  add_graph_fields(out, progress->graph, progress->operands_by_state);
  add_field(out, "staged_bytes", progress->staged_bytes);
  add_field(out, "failure_reason", progress->failure_reason);
  out += "</graph>\n";
  return out;
}

Result<std::string> query_graphs_operation(SubmitDocument& doc, SubmitSession& s) {
  auto user = authenticate_with_grant(doc, s.db);
  if (!user.ok()) return make_error(user.error());
  std::vector<GraphRow> graphs = fetch_graphs_of_user(s.db, user->id, kMaxGraphsListed);
  std::vector<int64_t> ids;
  for (const auto& g : graphs) ids.push_back(g.id);
  auto counts = count_operand_states_of_graphs(s.db, ids);
  std::string out;
  for (const auto& g : graphs) {
    out += "<graph>\n";
    add_graph_fields(out, g, counts[g.id]);
    out += "</graph>\n";
  }
  return out;
}

Result<std::string> get_graph_output_operation(SubmitDocument& doc, SubmitSession& s) {
  auto owned = owned_graph(doc, s.db);
  if (!owned.ok()) return make_error(owned.error());
  const GraphRow& graph = owned->graph;
  if (graph.state != GraphState::Done) {
    return make_error("graph " + std::to_string(graph.id) + " is " + graph_state_name(graph.state) +
                      ", not done");
  }
  std::string out;
  add_field(out, "graph_id", graph.id);
  int64_t bytes = result_chunk_bytes(s.db, graph.id);
  add_field(out, "result_bytes", bytes);
  add_field(out, "output_url", output_url(s.config, graph.id, owned->user.authenticator));
  if (bytes > kMaxInlineGraphOutputBytes) return out;  // the client fetches output_url
  auto npy = graph_result_npy(s.db, s.config, graph.id, kMaxInlineGraphOutputBytes);
  if (!npy.ok()) return make_error(npy.error());
  add_field(out, "md5", md5_hex(*npy));
  add_field(out, "npy_base64", base64_encode(*npy));
  return out;
}

Result<std::string> abort_graph_operation(SubmitDocument& doc, SubmitSession& s) {
  auto owned = owned_graph(doc, s.db);
  if (!owned.ok()) return make_error(owned.error());
  if (Status cancelled = cancel_graph(s.db, owned->graph.id, s.now); !cancelled.ok())
    return make_error(cancelled.error());
  return std::string("<success>1</success>\n");
}

}  // namespace tharsis
