// The clusterer's shell (docs/reclustering.md): for each app with WAITING cluster tasks (in its
// shard: appid % N), size jobs with the policy's k (clusterer_rules.h size_clusters over
// load_sizing_inputs), then form jobs — retries of failed jobs first, then never-run
// tasks — while fewer than <cluster_queue_jobs> (0: 2r) of the app's jobs wait unsent,
// so later jobs are sized with later estimates. Each job is one transaction: insert the
// workunit (input "in" = the task list), move each task WAITING -> IN_JOB of it (guarded:
// a task that moved meanwhile rolls the whole job back) and insert its cluster_job row.
// So a task is in at most one live job, and a job exists only with all its tasks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/rows.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

// The BOINC parameters of a clustered job. max_error_results = 0: a job that errors is
// not retried by the back end but ends in error, and the policy decides what to rerun.
struct ClusterJobParams {
  int delay_bound = 86400;
  double rsc_fpops_per_task = 1e9;
  std::string output_template;  // project-relative; empty: written at start (one output, 64 kB)
};

class ClustererPass final : public DaemonWork {
 public:
  ClustererPass(const ProjectConfig& config, ClusterJobParams params);
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
  // Forms the jobs one app needs now; returns how many were created.
  int cluster_app(Database& db, int64_t appid, int64_t now);
  // One job of `tasks` (WAITING rows, in order) in one transaction; false (logged) if a
  // task moved meanwhile or the workunit could not be made.
  bool create_job(Database& db, int64_t appid, const std::vector<ClusterTaskRow>& tasks, int64_t now);

 private:
  const ProjectConfig& config_;
  ClusterJobParams params_;
};

}  // namespace tharsis
