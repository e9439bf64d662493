// The reclustering page's model for one app (pure): its α/β history from failure_stat, the
// cluster size now in force, and the makespan curve M(k) of lib/recluster/model.h under
// the failure model of the latest estimate (TFM at α, JFM at β).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/recluster_status_queries.h"
#include "db/status_rows.h"

namespace tharsis {

// From lib/recluster/model.h, declared here only: that header's ReclusterPolicy clashes with
// lib/config/project_config.h's, which the page's CGI includes.
struct ClusterParams;
enum class FailureModel;

// M(k) at integer k = 1 .. min(max(n, 2), max_k). Empty for n <= 0.
std::vector<MakespanPoint> makespan_curve(const ClusterParams& params, FailureModel model, double rate,
                                          int64_t max_k = 200);

// What the page does not read from failure_stat.
struct ReclusterContext {
  std::string policy;         // the project's <recluster_policy>
  int64_t tasks_waiting = 0;  // n; when 0, the latest estimate's window stands in
  int64_t active_hosts = 0;   // r (at least 1 is used)
  double task_time = 5;       // t = φ̄ + C, seconds
  double job_overhead = 5;    // D, seconds
};

ReclusterApp recluster_app_view(const ReclusterHistory& history, const ReclusterContext& context);

}  // namespace tharsis
