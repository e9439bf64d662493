// Implementation of daemons/clusterer/lib/clusterer_pass.h.
#include "daemons/clusterer/lib/clusterer_pass.h"

#include <algorithm>
#include <map>

#include "daemons/clusterer/lib/sizing_inputs.h"
#include "db/cluster_store.h"
#include "db/stale_row.h"
#include "lib/log.h"
#include "lib/work/create_work.h"

namespace tharsis {
namespace {

// Retry rows read per pass: enough for every failed job of a large queue.
constexpr int kRetryFetchLimit = 100000;

}  // namespace

ClustererPass::ClustererPass(const ProjectConfig& config, ClusterJobParams params)
    : config_(config), params_(std::move(params)) {
  if (params_.output_template.empty()) {
    auto written = write_output_template(config_, "cluster_task_report.xml", 1, 64 * 1024);
    if (!written.ok()) throw std::runtime_error("clusterer: " + written.error());
    params_.output_template = *written;
  }
}

int ClustererPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  int created = 0;
  for (int64_t appid : apps_with_waiting_tasks(db)) {
    if (appid % context.shard.n != context.shard.id) continue;
    if (context.stop_requested()) break;
    created += cluster_app(db, appid, now);
  }
  return created;
}

int ClustererPass::cluster_app(Database& db, int64_t appid, int64_t now) {
  const ClusterSizing sizing = size_clusters(load_sizing_inputs(db, config_, appid, now));
  int64_t budget = new_job_budget(config_.cluster_queue_jobs, sizing.params.r, count_queued_jobs(db, appid));
  if (budget == 0) return 0;

  std::map<int64_t, ClusterTaskRow> rows;
  auto retry = fetch_retry_tasks(db, appid, kRetryFetchLimit);
  drop_cut_retry_group(retry, static_cast<size_t>(kRetryFetchLimit));
  std::vector<TaskGroup> jobs = form_retry_jobs(config_.recluster_policy, retry, sizing.k, budget);
  budget -= static_cast<int64_t>(jobs.size());
  auto fresh = fetch_fresh_tasks(db, appid, static_cast<int>(std::min<int64_t>(budget * sizing.k, 1 << 20)));
  for (auto& job : form_fresh_jobs(fresh, sizing.k, budget)) jobs.push_back(std::move(job));
  for (const auto& t : retry) rows[t.id] = t;
  for (const auto& t : fresh) rows[t.id] = t;

  int created = 0;
  for (const auto& job : jobs) {
    std::vector<ClusterTaskRow> tasks;
    for (TaskId id : job) tasks.push_back(rows.at(id));
    created += create_job(db, appid, tasks, now) ? 1 : 0;
  }
  if (created > 0) {
    log_info("app ", appid, ": ", created, " jobs of k=", sizing.k, " (",
             policy_name(config_.recluster_policy), ", ", failure_model_name(sizing.estimates.model),
             ", alpha=", sizing.estimates.alpha, ", beta=", sizing.estimates.beta, ", n=", sizing.params.n,
             ", r=", sizing.params.r, ")");
  }
  return created;
}

bool ClustererPass::create_job(Database& db, int64_t appid, const std::vector<ClusterTaskRow>& tasks,
                               int64_t now) {
  if (tasks.empty()) return false;
  std::vector<TaskSpec> specs;
  for (const auto& t : tasks) specs.push_back(TaskSpec{t.id, t.payload});
  // Unique per job: a task is first in at most one job per attempt number.
  const std::string name = "cluster_" + std::to_string(appid) + "_" + std::to_string(tasks.front().id) + "_" +
                           std::to_string(tasks.front().attempts + 1);
  JobSpec spec;
  spec.name = name;
  spec.appid = appid;
  spec.inputs = {InputFile{name + ".tasks", "in", render_task_list(specs), false}};
  spec.output_template_file = params_.output_template;
  spec.max_error_results = 0;
  spec.max_total_results = 1;
  spec.max_success_results = 1;
  spec.delay_bound = params_.delay_bound;
  spec.rsc_fpops_est = params_.rsc_fpops_per_task * static_cast<double>(tasks.size());
  spec.rsc_fpops_bound = spec.rsc_fpops_est * 100;
  auto prepared = prepare_workunit(config_, spec, now);
  if (!prepared.ok()) {
    log_error("app ", appid, ": cannot make job ", name, ": ", prepared.error());
    return false;
  }
  try {
    db.transaction([&](Database& d) {
      const int64_t wu_id = insert_prepared_workunit(d, *prepared);  // the workunit row
      for (const auto& t : tasks) {
        require_written(put_task_in_job(d, t.id, wu_id), "cluster task " + std::to_string(t.id));
      }
      ClusterJobRow job;
      job.workunitid = wu_id;
      job.appid = appid;
      job.k = static_cast<int>(tasks.size());
      job.create_time = now;
      insert_cluster_job(d, job);
    });
    return true;
  } catch (const StaleRow& e) {
    log_warning(e.what());
  } catch (const DbError& e) {
    if (!e.duplicate_key()) throw;
    // A lost COMMIT acknowledgement re-ran the transaction after it had committed.
    log_warning("job ", name, " already exists: ", e.what());
  }
  return false;
}

}  // namespace tharsis
