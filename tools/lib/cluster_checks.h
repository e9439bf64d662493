// tools/check's reclustering part (docs/reclustering.md: "never drop or duplicate a task: count
// them"). Over every cluster task and clustered job:
//   cluster_task_place  WAITING has no job; IN_JOB names a LIVE job; DONE names a SETTLED one
//   cluster_job_tasks   a LIVE job holds exactly k tasks IN_JOB and its input lists exactly
//                       those; a SETTLED job holds none
//   cluster_job_workunit  the job's workunit exists; LIVE exactly while not assimilated
//   cluster_task_count  tasks = waiting + in jobs + done, and in jobs = Σ k of live jobs
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/config/project_config.h"

namespace tharsis {

struct ClusterCounts {
  int64_t tasks = 0, waiting = 0, in_jobs = 0, done = 0;
  int64_t live_jobs = 0, settled_jobs = 0, live_job_slots = 0;  // slots: Σ k of live jobs
};

// Appends one "[rule] message" line per violation to `violations`.
ClusterCounts check_cluster_tasks(Database& db, const ProjectConfig& config,
                                  std::vector<std::string>& violations);

}  // namespace tharsis
