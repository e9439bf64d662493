// Online estimate of an app's task failure rate α and job failure rate β from its finished
// jobs (seed: DC/DR "measure the failure rate from jobs that have already completed").
// A sliding window keeps the last W jobs so the estimate follows a changing environment;
// a Beta prior (pseudo-counts) keeps it sane before there is data. Plain data: the window
// can be saved as rows and restored.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace tharsis {

struct EstimatorConfig {
  int64_t window_jobs = 200;        // W: only the last W finished jobs count
  double alpha_prior_mean = 0.0;    // prior guess of α ...
  double alpha_prior_tasks = 10.0;  // ... worth this many observed tasks
  double beta_prior_mean = 0.0;     // prior guess of β ...
  double beta_prior_jobs = 2.0;     // ... worth this many observed jobs
};

// One finished job: k tasks of which failed_tasks failed; job_failed when the job as a
// whole failed (under TFM: failed_tasks > 0; under JFM: the job was lost with all tasks).
// tasks_observed = false for a job lost before its tasks could report (a crash, no
// result): it counts towards β only, since its tasks say nothing about α.
struct JobRecord {
  int64_t k = 0;
  int64_t failed_tasks = 0;
  bool job_failed = false;
  bool tasks_observed = true;
};

class FailureEstimator {
 public:
  explicit FailureEstimator(EstimatorConfig config = {});
  // Restores an estimator from saved records (oldest first); keeps the last W of them.
  FailureEstimator(EstimatorConfig config, const std::vector<JobRecord>& records);

  // Adds a finished job, dropping the oldest once more than W are held. Throws
  // std::invalid_argument if k < 1 or failed_tasks is outside [0, k].
  void record_job(int64_t k, int64_t failed_tasks, bool job_failed, bool tasks_observed = true);

  // Posterior means: α = (a0 + failed tasks) / (w_α + tasks) with a0 = mean·w_α, over
  // the window's jobs whose tasks were observed; β = (b0 + failed jobs) / (w_β + jobs)
  // with b0 = mean·w_β, over the whole window.
  double alpha() const;
  double beta() const;

  int64_t jobs() const { return static_cast<int64_t>(window_.size()); }
  int64_t tasks() const { return tasks_; }  // tasks observed one by one
  int64_t failed_tasks() const { return failed_tasks_; }
  int64_t failed_jobs() const { return failed_jobs_; }
  const EstimatorConfig& config() const { return config_; }
  // The window, oldest first (what a DB row set would store).
  std::vector<JobRecord> records() const { return {window_.begin(), window_.end()}; }

 private:
  void add(const JobRecord& record);

  EstimatorConfig config_;
  std::deque<JobRecord> window_;
  int64_t tasks_ = 0;
  int64_t failed_tasks_ = 0;
  int64_t failed_jobs_ = 0;
};

}  // namespace tharsis
