// Implementation of sched/lib/submit/submit_rpc.h.
#include "sched/lib/submit/submit_rpc.h"

#include <utility>

#include "lib/log.h"
#include "sched/lib/submit/batch_control.h"
#include "sched/lib/submit/batch_queries.h"
#include "sched/lib/submit/batch_submission.h"
#include "sched/lib/submit/form_body.h"
#include "sched/lib/submit/graph_operations.h"
#include "sched/lib/submit/submit_reply.h"
#include "sched/lib/submit/submit_request.h"
#include "sched/lib/submit/task_operations.h"

namespace tharsis {
namespace {

Result<std::string> ping_operation(SubmitDocument&, SubmitSession& s) {
  s.db.ping();  // throws if the database is unreachable
  return std::string("<success>1</success>\n");
}

constexpr std::pair<const char*, SubmitOperation> kOperations[] = {
    {"ping", ping_operation},
    {"get_templates", get_templates_operation},
    {"estimate_batch", estimate_batch_operation},
    {"create_batch", create_batch_operation},
    {"submit_batch", submit_batch_operation},
    {"query_batches", query_batches_operation},
    {"query_batch", query_batch_operation},
    {"query_job", query_job_operation},
    {"query_completed_job", query_completed_job_operation},
    {"abort_batch", abort_batch_operation},
    {"abort_jobs", abort_jobs_operation},
    {"retire_batch", retire_batch_operation},
    {"set_expire_time", set_expire_time_operation},
    // Tharsis extensions: operand graphs and clustered tasks.
    {"submit_graph", submit_graph_operation},
    {"query_graph", query_graph_operation},
    {"query_graphs", query_graphs_operation},
    {"get_graph_output", get_graph_output_operation},
    {"abort_graph", abort_graph_operation},
    {"submit_tasks", submit_tasks_operation},
};

SubmitOperation find_operation(std::string_view name) {
  for (const auto& [op, fn] : kOperations) {
    if (name == op) return fn;
  }
  return nullptr;
}

}  // namespace

std::string handle_submit_rpc(std::string_view body, Database& db, const ProjectConfig& config,
                              const SubmitLimits& limits, int64_t now) {
  auto text = extract_request_document(body);
  if (!text.ok()) return render_submit_error("", "can't parse request message: " + text.error());
  auto doc = load_submit_document(std::move(*text), limits);
  if (!doc.ok()) return render_submit_error("", "can't parse request message: " + doc.error());
  SubmitOperation operation = find_operation((*doc)->operation);
  if (!operation) return render_submit_error("", "bad command");
  SubmitSession session{db, config, limits, now};
  auto reply = operation(**doc, session);
  const std::string& name = (*doc)->operation;
  if (!reply.ok()) {
    log_info("submit_rpc ", name, ": ", reply.error());
    return render_submit_error(name, reply.error());
  }
  return render_submit_reply(name, *reply);
}

}  // namespace tharsis
