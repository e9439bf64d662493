// Runtime model of fault-tolerant clustering: M(k) under JFM/TFM, k*, the corrected TFM
// closed form against a numerical scan, the size a policy picks, and the TFM/JFM classifier.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lib/recluster/model.h"

namespace tharsis::recluster_model_test {
namespace {

// The seed's example: n = 1000, φ̄+C = 5 s, D = 5 s, r = 20.
ClusterParams seed_example() { return ClusterParams{1000, 20, 5.0, 0.0, 5.0}; }

double scan_tfm(const ClusterParams& p, double alpha, double step) {
  return optimal_k_by_scan([&](double k) { return expected_makespan_tfm(p, k, alpha); },
                           static_cast<double>(p.n), step);
}

TEST(ReclusterModel, JfmOptimalKIsNOverRWhateverBeta) {
  const auto p = seed_example();
  EXPECT_DOUBLE_EQ(optimal_k_jfm(p), 50.0);
  for (double beta : {0.0, 0.05, 0.1, 0.3, 0.6}) {
    const double k = optimal_k_by_scan([&](double x) { return expected_makespan_jfm(p, x, beta); }, 1000.0);
    EXPECT_DOUBLE_EQ(k, 50.0) << "beta=" << beta;
  }
}

TEST(ReclusterModel, MakespanBranchesMeetAtNOverR) {
  const auto p = seed_example();
  // n/k >= r: n(kt+D)/(rkγ); at k = n/r this is (kt+D)/γ, the other branch.
  EXPECT_NEAR(expected_makespan_tfm(p, 50.0, 0.01), 255.0 / std::pow(0.99, 50), 1e-9);
  EXPECT_NEAR(expected_makespan_jfm(p, 50.0, 0.2), 255.0 / 0.8, 1e-9);
  EXPECT_NEAR(expected_makespan_jfm(p, 10.0, 0.2), 1000.0 * 55.0 / (20.0 * 10.0 * 0.8), 1e-9);
  EXPECT_NEAR(expected_makespan_jfm(p, 100.0, 0.2), 505.0 / 0.8, 1e-9);
}

TEST(ReclusterModel, TfmClosedFormEqualsNumericalScanMinimum) {
  const auto p = seed_example();
  for (double alpha : {0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1}) {
    const double scanned = scan_tfm(p, alpha, 0.001);
    EXPECT_NEAR(optimal_k_tfm_closed_form(p, alpha), scanned, 0.002) << "alpha=" << alpha;
  }
  // docs/reclustering.md: ≈ 9.5 at α = 0.01 and ≈ 5.2 at α = 0.03 for t = D = 5 s.
  EXPECT_NEAR(scan_tfm(p, 0.01, 0.001), 9.5, 0.1);
  EXPECT_NEAR(scan_tfm(p, 0.03, 0.001), 5.2, 0.1);
}

TEST(ReclusterModel, SeedPrintedRootWithoutTIsNotTheMinimum) {
  const auto p = seed_example();
  const double t = p.phi + p.C, alpha = 0.01;
  const double seed_root = (-p.D + std::sqrt(p.D * p.D - 4.0 * p.D / std::log(1.0 - alpha))) / (2.0 * t);
  EXPECT_GT(std::fabs(seed_root - scan_tfm(p, alpha, 0.001)), 2.0);
}

TEST(ReclusterModel, TfmOptimalKDecreasesWithAlpha) {
  const auto p = seed_example();
  double previous = optimal_k_tfm_closed_form(p, 0.0005);
  for (double alpha = 0.001; alpha < 0.5; alpha *= 1.5) {
    const double k = optimal_k_tfm_closed_form(p, alpha);
    EXPECT_LT(k, previous) << "alpha=" << alpha;
    previous = k;
  }
}

TEST(ReclusterModel, TfmOptimalKIsNOverRWithoutFailures) {
  const auto p = seed_example();
  EXPECT_DOUBLE_EQ(optimal_k_tfm_closed_form(p, 0.0), 50.0);
  // Tiny α: the stationary point lies past n/r, so the first branch decreases up to n/r.
  EXPECT_DOUBLE_EQ(optimal_k_tfm_closed_form(p, 1e-5), 50.0);
  EXPECT_DOUBLE_EQ(scan_tfm(p, 1e-5, 1.0), 50.0);
}

TEST(ReclusterModel, TfmMakespanGrowsExponentiallyJfmLinearlyForLargeK) {
  const auto p = seed_example();
  const double alpha = 0.02, beta = 0.2;
  for (double k = 100; k < 300; k += 50) {
    // TFM: log M(k+1) - log M(k) tends to -ln(1-α) (a constant factor per extra task).
    const double log_step =
        std::log(expected_makespan_tfm(p, k + 1, alpha)) - std::log(expected_makespan_tfm(p, k, alpha));
    EXPECT_NEAR(log_step, -std::log(1.0 - alpha), 0.01) << "k=" << k;
    // JFM: M(k+1) - M(k) is the constant t/(1-β).
    EXPECT_NEAR(expected_makespan_jfm(p, k + 1, beta) - expected_makespan_jfm(p, k, beta), 5.0 / (1.0 - beta),
                1e-9);
  }
}

TEST(ReclusterModel, ChooseClusterSizeRoundsToBetterIntegerNeighbour) {
  const auto p = seed_example();
  for (double alpha : {0.001, 0.005, 0.01, 0.03, 0.1}) {
    FailureEstimates est;
    est.alpha = alpha;
    const int64_t k = choose_cluster_size(ReclusterPolicy::DR, p, est);
    EXPECT_EQ(static_cast<double>(k), scan_tfm(p, alpha, 1.0)) << "alpha=" << alpha;
    EXPECT_EQ(choose_cluster_size(ReclusterPolicy::DC, p, est), k);
  }
}

TEST(ReclusterModel, ChooseClusterSizeStaysWithinOneAndN) {
  auto p = seed_example();
  FailureEstimates est;
  est.alpha = 0.9;  // stationary point below 1
  EXPECT_EQ(choose_cluster_size(ReclusterPolicy::DR, p, est), 1);
  est.fixed_k = 5000;
  EXPECT_EQ(choose_cluster_size(ReclusterPolicy::Noop, p, est), 1000);
  est.fixed_k = 0;
  EXPECT_EQ(choose_cluster_size(ReclusterPolicy::SR, p, est), 1);
  p.n = 3;  // few tasks left: n/r < 1
  est.alpha = 0.0;
  EXPECT_EQ(choose_cluster_size(ReclusterPolicy::DC, p, est), 1);
  p.n = 0;
  EXPECT_EQ(choose_cluster_size(ReclusterPolicy::DR, p, est), 1);
}

TEST(ReclusterModel, NoopAndSrKeepTheFixedSize) {
  const auto p = seed_example();
  FailureEstimates est;
  est.alpha = 0.1;
  est.fixed_k = 50;
  EXPECT_EQ(choose_cluster_size(ReclusterPolicy::Noop, p, est), 50);
  EXPECT_EQ(choose_cluster_size(ReclusterPolicy::SR, p, est), 50);
  EXPECT_LT(choose_cluster_size(ReclusterPolicy::DR, p, est), 5);
}

TEST(ReclusterModel, JfmPolicyChoosesNOverRWhateverBeta) {
  const auto p = seed_example();
  FailureEstimates est;
  est.model = FailureModel::Job;
  for (double beta : {0.0, 0.2, 0.5}) {
    est.beta = beta;
    EXPECT_EQ(choose_cluster_size(ReclusterPolicy::DR, p, est), 50);
  }
}

std::vector<JobOutcome> synthetic_outcomes(FailureModel model, double rate, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<JobOutcome> out;
  for (int i = 0; i < 600; ++i) {
    const int64_t k = 1 + i % 40;
    double p_success =
        model == FailureModel::Task ? std::pow(1.0 - rate, static_cast<double>(k)) : 1.0 - rate;
    out.push_back(JobOutcome{k, unit(rng) < p_success});
  }
  return out;
}

TEST(ReclusterModel, ClassifierFindsTaskFailuresWhenSuccessFallsWithK) {
  const auto p = seed_example();
  const auto c = classify_failure_model(synthetic_outcomes(FailureModel::Task, 0.02, 7), p);
  EXPECT_EQ(c.verdict, ModelVerdict::Task);
  EXPECT_TRUE(c.exponential_in_k);
  EXPECT_TRUE(c.k_star_depends_on_rate);
  EXPECT_NEAR(c.alpha_hat, 0.02, 0.005);
}

TEST(ReclusterModel, ClassifierFindsJobFailuresWhenSuccessIsFlatInK) {
  const auto p = seed_example();
  const auto c = classify_failure_model(synthetic_outcomes(FailureModel::Job, 0.2, 7), p);
  EXPECT_EQ(c.verdict, ModelVerdict::Job);
  EXPECT_FALSE(c.exponential_in_k);
  EXPECT_NEAR(c.beta_hat, 0.2, 0.05);
}

TEST(ReclusterModel, ClassifierUndecidedWithOneClusterSize) {
  const auto p = seed_example();
  std::vector<JobOutcome> outcomes;
  for (int i = 0; i < 100; ++i) outcomes.push_back(JobOutcome{10, i % 5 != 0});
  const auto c = classify_failure_model(outcomes, p);
  EXPECT_EQ(c.verdict, ModelVerdict::Undecided);
  EXPECT_NEAR(c.beta_hat, 0.2, 1e-12);
  // (1-α)^10 = 0.8 at the MLE.
  EXPECT_NEAR(std::pow(1.0 - c.alpha_hat, 10.0), 0.8, 1e-6);
}

TEST(ReclusterModel, ClassifierReportsJobWhenRateTooSmallToMoveKStar) {
  // Criterion 1 sees task failures (huge jobs fail far more often than single tasks), but
  // α ≈ 0.0003 puts the TFM stationary point (≈57) past n/r = 50: criterion 2 says the
  // failure rate does not change the best k, so the simple JFM rule k = n/r is reported.
  const auto p = seed_example();
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<JobOutcome> outcomes;
  for (int i = 0; i < 2000; ++i) {
    const int64_t k = i % 2 == 0 ? 1 : 2000;
    outcomes.push_back(JobOutcome{k, unit(rng) < std::pow(1.0 - 0.0003, static_cast<double>(k))});
  }
  const auto c = classify_failure_model(outcomes, p);
  EXPECT_TRUE(c.exponential_in_k);
  EXPECT_FALSE(c.k_star_depends_on_rate);
  EXPECT_EQ(c.verdict, ModelVerdict::Job);
}

TEST(ReclusterModel, ParsesPolicyNames) {
  ReclusterPolicy p = ReclusterPolicy::Noop;
  EXPECT_TRUE(parse_policy("DR", p));
  EXPECT_EQ(p, ReclusterPolicy::DR);
  EXPECT_TRUE(parse_policy("sr", p));
  EXPECT_EQ(policy_name(p), "SR");
  EXPECT_FALSE(parse_policy("fast", p));
}

}  // namespace
}  // namespace tharsis::recluster_model_test
