// Online α/β estimator: converges to known rates, the prior rules with few samples, the
// window forgets old jobs, records round-trip.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "lib/recluster/estimator.h"

namespace tharsis {
namespace {

// Feeds `jobs` synthetic TFM jobs of size k with task failure rate alpha.
void feed_tfm(FailureEstimator& e, std::mt19937_64& rng, int jobs, int64_t k, double alpha) {
  std::binomial_distribution<int64_t> failures(k, alpha);
  for (int i = 0; i < jobs; ++i) {
    const int64_t f = failures(rng);
    e.record_job(k, f, f > 0);
  }
}

TEST(ReclusterEstimator, ConvergesToKnownTaskAndJobFailureRates) {
  EstimatorConfig config;
  config.window_jobs = 5000;
  FailureEstimator e(config);
  std::mt19937_64 rng(11);
  feed_tfm(e, rng, 4000, 10, 0.05);
  EXPECT_NEAR(e.alpha(), 0.05, 0.004);
  EXPECT_NEAR(e.beta(), 1.0 - std::pow(0.95, 10), 0.02);
}

TEST(ReclusterEstimator, ConvergesUnderJobFailures) {
  EstimatorConfig config;
  config.window_jobs = 5000;
  FailureEstimator e(config);
  std::mt19937_64 rng(5);
  std::bernoulli_distribution lost(0.3);
  for (int i = 0; i < 3000; ++i) {
    const bool failed = lost(rng);
    e.record_job(20, failed ? 20 : 0, failed);
  }
  EXPECT_NEAR(e.beta(), 0.3, 0.025);
}

TEST(ReclusterEstimator, PriorDominatesWithFewSamples) {
  EstimatorConfig config;
  config.alpha_prior_mean = 0.01;
  config.alpha_prior_tasks = 1000;
  config.beta_prior_mean = 0.05;
  config.beta_prior_jobs = 100;
  FailureEstimator e(config);
  EXPECT_DOUBLE_EQ(e.alpha(), 0.01);
  EXPECT_DOUBLE_EQ(e.beta(), 0.05);
  e.record_job(5, 5, true);
  e.record_job(5, 5, true);  // raw rate 1.0
  EXPECT_LT(e.alpha(), 0.03);
  EXPECT_LT(e.beta(), 0.08);
  EXPECT_GT(e.alpha(), 0.01);  // but it does move toward the data
}

TEST(ReclusterEstimator, DataDominatesPriorWithManySamples) {
  EstimatorConfig config;
  config.alpha_prior_mean = 0.5;
  config.alpha_prior_tasks = 10;
  config.window_jobs = 1000;
  FailureEstimator e(config);
  for (int i = 0; i < 1000; ++i) e.record_job(10, 0, false);
  EXPECT_LT(e.alpha(), 0.001);
}

TEST(ReclusterEstimator, WindowForgetsOldJobs) {
  EstimatorConfig config;
  config.window_jobs = 50;
  FailureEstimator e(config);
  std::mt19937_64 rng(3);
  feed_tfm(e, rng, 100, 10, 0.5);
  EXPECT_GT(e.alpha(), 0.4);
  for (int i = 0; i < 50; ++i) e.record_job(10, 0, false);
  EXPECT_EQ(e.jobs(), 50);
  EXPECT_EQ(e.tasks(), 500);
  EXPECT_EQ(e.failed_tasks(), 0);
  EXPECT_EQ(e.failed_jobs(), 0);
  EXPECT_DOUBLE_EQ(e.alpha(), 0.0);
}

TEST(ReclusterEstimator, RestoresFromSavedRecords) {
  EstimatorConfig config;
  config.window_jobs = 30;
  FailureEstimator e(config);
  std::mt19937_64 rng(9);
  feed_tfm(e, rng, 45, 7, 0.2);
  const FailureEstimator restored(config, e.records());
  EXPECT_EQ(restored.jobs(), 30);
  EXPECT_DOUBLE_EQ(restored.alpha(), e.alpha());
  EXPECT_DOUBLE_EQ(restored.beta(), e.beta());
}

TEST(ReclusterEstimator, JobsLostWholeCountForBetaButNotAlpha) {
  EstimatorConfig config;
  config.alpha_prior_tasks = 0;
  config.beta_prior_jobs = 0;
  config.window_jobs = 3;
  FailureEstimator e(config);
  e.record_job(10, 1, false);
  e.record_job(10, 10, true, /*tasks_observed=*/false);
  EXPECT_EQ(e.tasks(), 10);
  EXPECT_DOUBLE_EQ(e.alpha(), 0.1);
  EXPECT_DOUBLE_EQ(e.beta(), 0.5);
  e.record_job(10, 0, false);
  e.record_job(10, 0, false);  // the first job leaves the window (W = 3)
  EXPECT_EQ(e.tasks(), 20);
  EXPECT_EQ(e.failed_tasks(), 0);
  EXPECT_DOUBLE_EQ(e.beta(), 1.0 / 3.0);
  e.record_job(10, 0, false);  // the lost one leaves: nothing to take back from α
  EXPECT_EQ(e.tasks(), 30);
  EXPECT_DOUBLE_EQ(e.beta(), 0.0);
  const FailureEstimator restored(config, e.records());
  EXPECT_DOUBLE_EQ(restored.alpha(), e.alpha());
}

TEST(ReclusterEstimator, RejectsImpossibleRecords) {
  FailureEstimator e;
  EXPECT_THROW(e.record_job(0, 0, false), std::invalid_argument);
  EXPECT_THROW(e.record_job(5, 6, true), std::invalid_argument);
  EXPECT_THROW(e.record_job(5, -1, false), std::invalid_argument);
  EstimatorConfig bad;
  bad.window_jobs = 0;
  EXPECT_THROW(FailureEstimator{bad}, std::invalid_argument);
}

}  // namespace
}  // namespace tharsis
