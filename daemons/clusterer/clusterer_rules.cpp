// Implementation of daemons/clusterer/clusterer_rules.h.
#include "daemons/clusterer/clusterer_rules.h"

#include <algorithm>

namespace tharsis {

JobRecord job_record(const ClusterJobRow& job) {
  JobRecord r;
  r.k = std::max(job.k, 1);
  r.failed_tasks = std::clamp<int64_t>(job.failed_tasks, 0, r.k);
  r.job_failed = job.job_failed;
  r.tasks_observed = !job.job_failed;
  return r;
}

ClusterSizing size_clusters(const SizingInputs& in) {
  ClusterSizing s{1, {}, {}, {}, FailureEstimator(in.estimator)};
  double run_time = 0, task_count = 0, overhead = 0, ran = 0;
  std::vector<JobOutcome> outcomes;
  for (const auto& job : in.window) {
    const JobRecord record = job_record(job);
    s.estimator.record_job(record.k, record.failed_tasks, record.job_failed, record.tasks_observed);
    outcomes.push_back(JobOutcome{record.k, record.failed_tasks == 0 && !record.job_failed});
    if (!job.job_failed) {
      run_time += job.run_time;
      task_count += static_cast<double>(record.k);
      overhead += std::max(0.0, job.turnaround - job.run_time);
      ran += 1;
    }
  }
  s.params.n = std::max<int64_t>(in.tasks_left, 0);
  s.params.r = std::max<int64_t>(in.active_hosts, 1);
  s.params.phi = task_count > 0 && run_time > 0 ? run_time / task_count : in.prior_task_time;
  s.params.C = 0;  // the per-task overhead is inside the measured run time
  s.params.D = ran > 0 ? overhead / ran : in.prior_job_overhead;

  s.classification = classify_failure_model(outcomes, s.params);
  s.estimates.model = s.classification.verdict == ModelVerdict::Job ? FailureModel::Job : FailureModel::Task;
  s.estimates.alpha = s.estimator.alpha();
  s.estimates.beta = s.estimator.beta();
  s.estimates.fixed_k = std::max<int64_t>(in.fixed_k, 1);
  s.k = choose_cluster_size(in.policy, s.params, s.estimates);
  return s;
}

int64_t new_job_budget(int64_t queue_jobs, int64_t active_hosts_r, int64_t queued_jobs) {
  const int64_t limit = queue_jobs > 0 ? queue_jobs : 2 * active_hosts_r;
  return std::max<int64_t>(0, limit - queued_jobs);
}

void drop_cut_retry_group(std::vector<ClusterTaskRow>& retry, size_t limit) {
  if (retry.size() != limit || retry.empty()) return;
  const int64_t cut = retry.back().retry_of;
  while (!retry.empty() && retry.back().retry_of == cut && retry.front().retry_of != cut) retry.pop_back();
}

std::vector<TaskGroup> form_retry_jobs(ReclusterPolicy policy, const std::vector<ClusterTaskRow>& retry,
                                       int64_t k, int64_t max_jobs) {
  const bool resize = policy == ReclusterPolicy::DC || policy == ReclusterPolicy::DR;
  std::vector<TaskGroup> jobs;
  for (size_t begin = 0; begin < retry.size() && static_cast<int64_t>(jobs.size()) < max_jobs;) {
    size_t end = begin;
    TaskGroup group;
    while (end < retry.size() && retry[end].retry_of == retry[begin].retry_of)
      group.push_back(retry[end++].id);
    for (auto& job : resize ? cluster_tasks(group, k) : std::vector<TaskGroup>{group}) {
      if (static_cast<int64_t>(jobs.size()) == max_jobs) break;  // the rest wait for the next pass
      jobs.push_back(std::move(job));
    }
    begin = end;
  }
  return jobs;
}

std::vector<TaskGroup> form_fresh_jobs(const std::vector<ClusterTaskRow>& fresh, int64_t k,
                                       int64_t max_jobs) {
  k = std::max<int64_t>(k, 1);
  if (max_jobs <= 0) return {};
  const auto take = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(fresh.size()), max_jobs * k));
  std::vector<TaskGroup> jobs;
  for (size_t begin = 0; begin < take; begin += static_cast<size_t>(k)) {
    TaskGroup job;
    for (size_t i = begin; i < std::min(take, begin + static_cast<size_t>(k)); ++i)
      job.push_back(fresh[i].id);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

JobSettlement settle_job(ReclusterPolicy policy, const std::vector<TaskId>& tasks,
                         const std::optional<std::vector<TaskReport>>& report) {
  JobSettlement s;
  if (!report || !check_report_matches(tasks, *report).ok()) {
    s.retry = tasks;
    s.failed_tasks = static_cast<int>(tasks.size());
    s.job_failed = true;
    return s;
  }
  std::vector<bool> ok;
  for (const auto& r : *report) {
    ok.push_back(r.ok);
    s.failed_tasks += r.ok ? 0 : 1;
  }
  const RetryPlan plan = plan_after_job(policy, tasks, ok, 1);  // only `done` is used here
  s.done = plan.done;
  for (TaskId id : s.done) {
    const auto at = std::find(tasks.begin(), tasks.end(), id) - tasks.begin();
    s.outputs.push_back((*report)[static_cast<size_t>(at)].text);
  }
  for (TaskId id : tasks) {
    if (std::find(s.done.begin(), s.done.end(), id) == s.done.end()) s.retry.push_back(id);
  }
  return s;
}

FailureStatRow failure_stat_row(int64_t appid, int64_t now, ReclusterPolicy policy,
                                const ClusterSizing& sizing) {
  FailureStatRow row;
  row.appid = appid;
  row.time = now;
  row.jobs = static_cast<int>(sizing.estimator.jobs());
  row.tasks = static_cast<int>(sizing.estimator.tasks());
  row.failed_jobs = static_cast<int>(sizing.estimator.failed_jobs());
  row.failed_tasks = static_cast<int>(sizing.estimator.failed_tasks());
  row.alpha = sizing.estimates.alpha;
  row.beta = sizing.estimates.beta;
  row.cluster_size = static_cast<int>(sizing.k);
  row.model = sizing.estimates.model == FailureModel::Job ? "JFM" : "TFM";
  row.policy = std::string(policy_name(policy));
  row.tasks_left = sizing.params.n;
  row.hosts = sizing.params.r;
  row.task_time = sizing.params.phi;
  row.job_overhead = sizing.params.D;
  return row;
}

}  // namespace tharsis
