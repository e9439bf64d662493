// Implementation of daemons/clusterer/lib/sizing_inputs.h.
#include "daemons/clusterer/lib/sizing_inputs.h"

#include "db/cluster_store.h"
#include "db/recluster_status_queries.h"  // count_active_hosts

namespace tharsis {

EstimatorConfig estimator_config(const ProjectConfig& config) {
  EstimatorConfig e;
  e.window_jobs = config.cluster_window_jobs;
  return e;
}

SizingInputs load_sizing_inputs(Database& db, const ProjectConfig& config, int64_t appid, int64_t now) {
  SizingInputs in;
  in.policy = config.recluster_policy;
  in.fixed_k = config.initial_cluster_size;
  in.tasks_left = count_tasks_left(db, appid);
  in.active_hosts = count_active_hosts(db, now - 60LL * config.cluster_active_host_minutes);
  in.window = fetch_settled_window(db, appid, config.cluster_window_jobs);
  in.estimator = estimator_config(config);
  in.prior_task_time = config.cluster_task_time_prior;
  in.prior_job_overhead = config.cluster_job_overhead_prior;
  return in;
}

}  // namespace tharsis
