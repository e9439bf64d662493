// Implementation of sched/lib/submit/graph_output_download.h.
#include "sched/lib/submit/graph_output_download.h"

#include "db/graph_store.h"
#include "db/state_names.h"
#include "db/user_store.h"
#include "sched/lib/submit/graph_operations.h"
#include "tools/lib/graph_result.h"

namespace tharsis {
namespace {

HttpResponse refusal(int status, const std::string& why) {
  return HttpResponse{status, "text/plain", "ERROR: " + why + "\n"};
}

}  // namespace

HttpResponse graph_output_response(const QueryParams& q, Database& db, const ProjectConfig& config) {
  auto graph_id = q.get_int("graph_id", 1, INT32_MAX);
  auto auth = q.get_string("auth_str");
  if (!graph_id.ok() || !auth.ok()) return refusal(400, !graph_id.ok() ? graph_id.error() : auth.error());
  auto graph = fetch_graph(db, *graph_id);
  auto owner = graph && graph->user_id != 0 ? fetch_user(db, graph->user_id) : std::nullopt;
  if (!owner || graph_output_auth(owner->authenticator, *graph_id) != *auth)
    return refusal(403, "bad authenticator or no such graph");
  if (graph->state != GraphState::Done) {
    return refusal(
        404, "graph " + std::to_string(*graph_id) + " is " + graph_state_name(graph->state) + ", not done");
  }
  auto npy = graph_result_npy(db, config, *graph_id, kMaxGraphOutputBytes);
  if (!npy.ok()) return refusal(404, npy.error());
  return HttpResponse{200, "application/octet-stream", std::move(*npy)};
}

}  // namespace tharsis
