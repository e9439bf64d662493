// Implementation of daemons/assimilator/lib/live_cluster_jobs.h.
#include "daemons/assimilator/lib/live_cluster_jobs.h"

#include "db/cluster_store.h"

namespace tharsis {

void LiveClusterJobs::lock(Database& db, const std::vector<int64_t>& wu_ids) {
  jobs_.clear();
  std::map<int64_t, std::optional<ClusterJobRow>> jobs;
  for (int64_t id : wu_ids) jobs[id];  // no live job: known, no read of its own
  for (auto& job : lock_live_cluster_jobs(db, wu_ids)) jobs[job.workunitid] = std::move(job);
  jobs_ = std::move(jobs);
}

std::optional<ClusterJobRow> LiveClusterJobs::load(Database& db, int64_t wu_id) {
  auto it = jobs_.find(wu_id);
  if (it != jobs_.end()) {
    std::optional<ClusterJobRow> job = std::move(it->second);
    jobs_.erase(it);
    return job;
  }
  auto job = fetch_cluster_job(db, wu_id, /*for_update=*/true);
  if (!job || job->state != ClusterJobState::Live) return std::nullopt;
  return job;
}

}  // namespace tharsis
