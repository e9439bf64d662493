// Implementation of tools/lib/graph_request.h.
#include "tools/lib/graph_request.h"

#include <algorithm>
#include <random>

#include "db/app_store.h"
#include "lib/operand/graph_compiler.h"
#include "tools/lib/graph_from_chunks.h"
#include "tools/lib/graph_submit.h"

namespace tharsis {
namespace {

constexpr int64_t kActiveHostSeconds = 86400;  // placement spreads sources over hosts seen today
constexpr size_t kTilingBoundFactor = 10;      // unfused operands allowed per fused one

operand::TileOptions tile_options(size_t max_operands) {
  operand::TileOptions options;
  if (max_operands > 0)
    options.max_operands = std::min(options.max_operands, max_operands * kTilingBoundFactor);
  return options;
}

std::string default_graph_name(int64_t user_id, int64_t now) {
  return "graph_" + std::to_string(user_id) + "_" + std::to_string(now) + "_" +
         std::to_string(std::random_device{}() % 1000000);
}

}  // namespace

JobSpec default_graph_job() {
  JobSpec job;
  job.min_quorum = 1;
  job.target_nresults = 1;
  job.max_error_results = 3;
  job.max_total_results = 10;
  job.delay_bound = 3600;
  job.rsc_fpops_est = 1e9;
  return job;
}

Result<SubmittedGraph> submit_graph_request(Database& db, const ProjectConfig& config,
                                            const GraphRequest& request, int64_t now) {
  std::string name = request.name.empty() ? default_graph_name(request.user_id, now) : request.name;
  if (Status named = check_graph_name(name); !named.ok()) return make_error(named.error());
  auto app = fetch_app_by_name(db, request.app_name);
  if (!app) return make_error("submit_graph: no app named '" + request.app_name + "'");
  JobSpec job = request.job;
  job.name = "graph_operand";  // only for the checks: each operand run names its own workunit
  if (Status checked = check_job_spec(job); !checked.ok()) return make_error(checked.error());
  if (request.prefer_seconds < 0) return make_error("submit_graph: prefer_seconds must be >= 0");
  auto compiled = operand::compile_graph(request.expression, tile_options(request.max_operands));
  if (!compiled.ok()) return make_error("submit_graph: " + compiled.error());
  const size_t operands = compiled->chunks.operands.size();
  if (request.max_operands > 0 && operands > request.max_operands) {
    return make_error("submit_graph: the graph has " + std::to_string(operands) +
                      " chunk operands, more than the limit of " + std::to_string(request.max_operands) +
                      "; use larger chunks");
  }
  auto templ = write_output_template(config, app->name + "_out1.xml", 1, config.max_upload_size);
  if (!templ.ok()) return make_error("submit_graph: " + templ.error());
  job.appid = app->id;
  job.output_template_file = *templ;
  GraphSubmission graph;
  graph.name = name;
  graph.expression = request.expression;
  graph.job = job;
  graph.prefer_seconds = request.prefer_seconds;
  graph.user_id = request.user_id;
  auto id = submit_chunk_graph(db, config, std::move(graph), compiled->chunks,
                               active_host_ids(db, now - kActiveHostSeconds), now);
  if (!id.ok()) return make_error(id.error());
  return SubmittedGraph{*id, name, static_cast<int64_t>(operands)};
}

}  // namespace tharsis
