// Sliding-window Beta-prior estimator of α and β; see estimator.h.
#include "lib/recluster/estimator.h"

#include <stdexcept>
#include <string>

namespace tharsis {

namespace {

void check_config(const EstimatorConfig& c) {
  if (c.window_jobs < 1) throw std::invalid_argument("estimator window must hold >= 1 job");
  if (c.alpha_prior_mean < 0.0 || c.alpha_prior_mean > 1.0 || c.beta_prior_mean < 0.0 ||
      c.beta_prior_mean > 1.0) {
    throw std::invalid_argument("estimator prior means must lie in [0, 1]");
  }
  if (c.alpha_prior_tasks < 0.0 || c.beta_prior_jobs < 0.0) {
    throw std::invalid_argument("estimator prior weights must be >= 0");
  }
}

}  // namespace

FailureEstimator::FailureEstimator(EstimatorConfig config) : config_(config) { check_config(config_); }

FailureEstimator::FailureEstimator(EstimatorConfig config, const std::vector<JobRecord>& records)
    : FailureEstimator(config) {
  for (const auto& r : records) record_job(r.k, r.failed_tasks, r.job_failed, r.tasks_observed);
}

void FailureEstimator::record_job(int64_t k, int64_t failed_tasks, bool job_failed, bool tasks_observed) {
  if (k < 1 || failed_tasks < 0 || failed_tasks > k) {
    throw std::invalid_argument("job record expects k >= 1 and 0 <= failed_tasks <= k, found k=" +
                                std::to_string(k) + " failed_tasks=" + std::to_string(failed_tasks));
  }
  add(JobRecord{k, failed_tasks, job_failed, tasks_observed});
  while (jobs() > config_.window_jobs) {
    const JobRecord& old = window_.front();
    if (old.tasks_observed) {
      tasks_ -= old.k;
      failed_tasks_ -= old.failed_tasks;
    }
    failed_jobs_ -= old.job_failed ? 1 : 0;
    window_.pop_front();
  }
}

void FailureEstimator::add(const JobRecord& record) {
  window_.push_back(record);
  if (record.tasks_observed) {
    tasks_ += record.k;
    failed_tasks_ += record.failed_tasks;
  }
  failed_jobs_ += record.job_failed ? 1 : 0;
}

double FailureEstimator::alpha() const {
  const double weight = config_.alpha_prior_tasks + static_cast<double>(tasks_);
  if (weight <= 0.0) return config_.alpha_prior_mean;
  return (config_.alpha_prior_mean * config_.alpha_prior_tasks + static_cast<double>(failed_tasks_)) / weight;
}

double FailureEstimator::beta() const {
  const double weight = config_.beta_prior_jobs + static_cast<double>(jobs());
  if (weight <= 0.0) return config_.beta_prior_mean;
  return (config_.beta_prior_mean * config_.beta_prior_jobs + static_cast<double>(failed_jobs_)) / weight;
}

}  // namespace tharsis
