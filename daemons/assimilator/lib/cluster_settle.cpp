// Implementation of daemons/assimilator/lib/cluster_settle.h.
#include "daemons/assimilator/lib/cluster_settle.h"

#include "daemons/assimilator/lib/live_cluster_jobs.h"
#include "daemons/clusterer/lib/sizing_inputs.h"
#include "db/cluster_store.h"
#include "db/stale_row.h"
#include "lib/log.h"
#include "lib/text_file.h"
#include "lib/work/output_files.h"

namespace tharsis {
namespace {

// The canonical result's task report, or nullopt (logged) when there is none to trust.
std::optional<std::vector<TaskReport>> read_report(const ProjectConfig& config, const WorkunitRow& wu,
                                                   const ResultRow* canonical) {
  if (!canonical) return std::nullopt;
  auto paths = output_file_paths(config, *canonical);
  if (!paths.ok() || paths->empty()) {
    log_warning("clustered workunit ", wu.id,
                ": no output file: ", paths.ok() ? "none listed" : paths.error());
    return std::nullopt;
  }
  auto text = read_text_file(paths->front());
  if (!text.ok()) {
    log_warning("clustered workunit ", wu.id, ": ", text.error());
    return std::nullopt;
  }
  auto report = parse_task_report(*text);
  if (!report.ok()) {
    log_warning("clustered workunit ", wu.id, ": ", report.error());
    return std::nullopt;
  }
  return std::move(*report);
}

}  // namespace

Status settle_cluster_job_tasks(Database& db, const ProjectConfig& config, const WorkunitRow& wu,
                                const ClusterJobRow& job, const ResultRow* canonical, int64_t now) {
  std::vector<TaskId> ids;
  for (const auto& task : fetch_tasks_in_job(db, wu.id, /*for_update=*/true)) ids.push_back(task.id);
  if (static_cast<int>(ids.size()) != job.k) {
    return make_error("clustered workunit " + std::to_string(wu.id) + ": expected " + std::to_string(job.k) +
                      " tasks in the job, found " + std::to_string(ids.size()));
  }
  const JobSettlement s = settle_job(config.recluster_policy, ids, read_report(config, wu, canonical));
  for (size_t i = 0; i < s.done.size(); ++i) {
    require_written(mark_task_done(db, s.done[i], wu.id, s.outputs[i].substr(0, 254), now),
                    "cluster task " + std::to_string(s.done[i]));
  }
  for (TaskId id : s.retry) {
    require_written(return_task_for_retry(db, id, wu.id), "cluster task " + std::to_string(id));
  }
  ClusterJobRow settled = job;
  settled.failed_tasks = s.failed_tasks;
  settled.job_failed = s.job_failed;
  settled.settle_time = now;
  if (canonical && !s.job_failed) {
    settled.run_time = canonical->elapsed_time;
    settled.turnaround = static_cast<double>(canonical->received_time - canonical->sent_time);
  }
  require_written(settle_cluster_job(db, settled), "cluster job " + std::to_string(wu.id));

  const ClusterSizing sizing = size_clusters(load_sizing_inputs(db, config, wu.appid, now));
  insert_failure_stat(db, failure_stat_row(wu.appid, now, config.recluster_policy, sizing));
  return Status::success();
}

AssimilationHandler cluster_settling_handler(const ProjectConfig& config, AssimilationHandler inner) {
  auto jobs = std::make_shared<LiveClusterJobs>();
  AssimilationHandler handler;
  handler.batch_rows = std::move(inner.batch_rows);
  handler.batch_rows.push_back(jobs);
  handler.handle = [&config, jobs, inner = std::move(inner.handle)](
                       Database& db, const WorkunitRow& wu, const ResultRow* canonical,
                       const std::vector<CheckedOutput>& outputs, int64_t now) -> Status {
    if (Status s = inner(db, wu, canonical, outputs, now); !s.ok()) return s;
    const std::optional<ClusterJobRow> job = jobs->load(db, wu.id);
    if (!job) return Status::success();
    return settle_cluster_job_tasks(db, config, wu, *job, canonical, now);
  };
  return handler;
}

}  // namespace tharsis
