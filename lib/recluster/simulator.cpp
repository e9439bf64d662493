// Discrete-event simulator of clustered jobs with transient failures; see simulator.h.
#include "lib/recluster/simulator.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <queue>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "lib/recluster/policy.h"

namespace tharsis {

namespace {

struct JobEnd {
  double time;
  int64_t seq;  // start order: breaks ties between jobs ending at the same instant
  bool operator>(const JobEnd& other) const {
    return time != other.time ? time > other.time : seq > other.seq;
  }
};

void require(const Status& s) {
  if (!s.ok()) throw std::logic_error("simulator task conservation: " + s.error());
}

}  // namespace

int64_t failure_blind_k(const ClusterParams& params) {
  return std::max<int64_t>(1, std::llround(optimal_k_jfm(params)));
}

SimResult simulate(const SimConfig& config) {
  const ClusterParams& p = config.params;
  if (p.n < 1 || p.r < 1 || p.phi + p.C <= 0.0 || p.D < 0.0) {
    throw std::invalid_argument("simulator expects n >= 1, r >= 1, φ̄+C > 0, D >= 0");
  }
  if (config.rate < 0.0 || config.rate >= 1.0 || config.jitter < 0.0 || config.jitter >= 1.0) {
    throw std::invalid_argument("simulator expects 0 <= rate < 1 and 0 <= jitter < 1");
  }

  std::mt19937_64 rng(config.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  FailureEstimator estimator(config.estimator);
  TaskLedger ledger(p.n);
  FailureEstimates estimates;
  estimates.model = config.model;
  estimates.fixed_k = config.fixed_k > 0 ? config.fixed_k : failure_blind_k(p);

  SimResult result;
  int64_t done = 0;
  // The size the policy would use now, with `finishing` more tasks about to be done.
  auto k_now = [&](int64_t finishing) {
    ClusterParams left = p;
    left.n = p.n - done - finishing;
    estimates.alpha = estimator.alpha();
    estimates.beta = estimator.beta();
    return choose_cluster_size(config.policy, left, estimates);
  };

  std::deque<TaskGroup> queue;
  auto enqueue = [&](std::vector<TaskGroup> jobs) {
    for (auto& job : jobs) {
      require(ledger.add_pending(job));
      queue.push_back(std::move(job));
    }
  };
  std::vector<TaskId> all(static_cast<size_t>(p.n));
  std::iota(all.begin(), all.end(), 0);
  result.initial_k = k_now(0);
  enqueue(cluster_tasks(all, result.initial_k));

  std::priority_queue<JobEnd, std::vector<JobEnd>, std::greater<>> events;
  std::unordered_map<int64_t, TaskGroup> running;
  int64_t free_resources = p.r, next_seq = 0;
  auto start_jobs = [&](double now) {
    while (free_resources > 0 && !queue.empty()) {
      TaskGroup job = std::move(queue.front());
      queue.pop_front();
      require(ledger.start(job));
      double duration = p.job_time(static_cast<double>(job.size()));
      if (config.jitter > 0.0) duration *= 1.0 + config.jitter * (2.0 * unit(rng) - 1.0);
      events.push(JobEnd{now + duration, next_seq});
      running.emplace(next_seq++, std::move(job));
      --free_resources;
    }
  };
  start_jobs(0.0);

  while (!events.empty()) {
    const JobEnd end = events.top();
    events.pop();
    ++free_resources;
    TaskGroup job = std::move(running.at(end.seq));
    running.erase(end.seq);
    const auto k = static_cast<int64_t>(job.size());

    std::vector<bool> ok(job.size(), true);
    if (config.model == FailureModel::Task) {
      for (size_t i = 0; i < ok.size(); ++i) ok[i] = unit(rng) >= config.rate;
    } else if (unit(rng) < config.rate) {
      std::fill(ok.begin(), ok.end(), false);
    }
    const auto failed = static_cast<int64_t>(std::count(ok.begin(), ok.end(), false));
    estimator.record_job(k, failed, failed > 0);
    ++result.jobs_run;
    result.task_runs += k;
    result.failed_jobs += failed > 0 ? 1 : 0;

    // Only SR and DR keep the ok tasks of a failed job; NOOP and DC rerun them all.
    const bool selective = config.policy == ReclusterPolicy::SR || config.policy == ReclusterPolicy::DR;
    const int64_t k_model = failed > 0 ? k_now(selective ? k - failed : 0) : 1;
    RetryPlan plan = plan_after_job(config.policy, job, ok, k_model);
    require(check_plan(job, plan));
    require(ledger.finish(job, plan.done));
    done += static_cast<int64_t>(plan.done.size());
    enqueue(std::move(plan.new_jobs));
    if (config.check_invariants) require(ledger.check());

    if (done == p.n) {
      result.finished = true;
      result.makespan = end.time;
      break;
    }
    if (result.jobs_run >= config.max_jobs) {
      result.makespan = end.time;
      break;
    }
    start_jobs(end.time);
  }
  if (result.finished) require(ledger.check_full());
  result.alpha_estimate = estimator.alpha();
  result.beta_estimate = estimator.beta();
  return result;
}

}  // namespace tharsis
