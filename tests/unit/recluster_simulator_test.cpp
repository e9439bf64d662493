// Discrete-event simulator and the seed's policy comparison: seeded runs repeat, a level
// without failures takes one cycle, DR beats NOOP by far at high task failure rates and
// is no slower than DC or SR.
#include <gtest/gtest.h>

#include <cmath>

#include "lib/recluster/simulator.h"
#include "lib/recluster/study.h"

namespace tharsis {
namespace {

TEST(ReclusterSimulator, SameSeedGivesSameRun) {
  SimConfig c;
  c.rate = 0.03;
  c.policy = ReclusterPolicy::DR;
  c.jitter = 0.1;
  c.seed = 42;
  const SimResult a = simulate(c), b = simulate(c);
  EXPECT_EQ(a.makespan, b.makespan);
  EXPECT_EQ(a.jobs_run, b.jobs_run);
  c.seed = 43;
  EXPECT_NE(simulate(c).makespan, a.makespan);
}

TEST(ReclusterSimulator, NoFailuresTakeOneCycleOfNOverRJobs) {
  for (auto policy : kAllPolicies) {
    SimConfig c;
    c.policy = policy;
    const SimResult r = simulate(c);
    EXPECT_TRUE(r.finished);
    EXPECT_EQ(r.initial_k, 50);
    EXPECT_EQ(r.jobs_run, 20);
    EXPECT_EQ(r.task_runs, 1000);
    EXPECT_DOUBLE_EQ(r.makespan, 5.0 + 50 * 5.0);  // D + k(φ̄+C)
  }
}

TEST(ReclusterSimulator, EveryTaskRunsUntilDoneUnderJobFailures) {
  for (auto policy : kAllPolicies) {
    SimConfig c;
    c.model = FailureModel::Job;
    c.rate = 0.3;
    c.policy = policy;
    c.seed = 7;
    const SimResult r = simulate(c);  // throws if the ledger ever loses a task
    EXPECT_TRUE(r.finished);
    EXPECT_GT(r.failed_jobs, 0);
    EXPECT_GT(r.task_runs, 1000);
    EXPECT_NEAR(r.beta_estimate, 0.3, 0.2);
  }
}

TEST(ReclusterSimulator, EstimatorInsideTheSimulatorLearnsAlpha) {
  SimConfig c;
  c.rate = 0.05;
  c.policy = ReclusterPolicy::DR;
  c.seed = 3;
  const SimResult r = simulate(c);
  EXPECT_TRUE(r.finished);
  EXPECT_NEAR(r.alpha_estimate, 0.05, 0.02);
}

TEST(ReclusterSimulator, StopsUnfinishedAtMaxJobs) {
  SimConfig c;
  c.rate = 0.1;
  c.policy = ReclusterPolicy::Noop;
  c.max_jobs = 100;
  const SimResult r = simulate(c);
  EXPECT_FALSE(r.finished);
  EXPECT_EQ(r.jobs_run, 100);
}

TEST(ReclusterSimulator, RejectsImpossibleConfig) {
  SimConfig c;
  c.rate = 1.0;
  EXPECT_THROW(simulate(c), std::invalid_argument);
  c.rate = 0.0;
  c.params.r = 0;
  EXPECT_THROW(simulate(c), std::invalid_argument);
}

// The policy comparison exactly as ftsim computes it (seed's example, 10 seeded runs).
class ReclusterPolicyStudy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    StudyConfig config;
    rows_ = new std::vector<PolicyRow>(study_policies(config, {0.01, 0.02, 0.05, 0.1}));
  }
  static void TearDownTestSuite() {
    delete rows_;
    rows_ = nullptr;
  }
  static const SimStats& stats(const PolicyRow& row, ReclusterPolicy p) {
    return row.by_policy[static_cast<size_t>(p)];
  }
  static std::vector<PolicyRow>* rows_;
};
std::vector<PolicyRow>* ReclusterPolicyStudy::rows_ = nullptr;

TEST_F(ReclusterPolicyStudy, DrAtLeastThreeTimesFasterThanNoopAtHighTaskFailureRates) {
  for (const auto& row : *rows_) {
    if (row.rate < 0.02) continue;
    const auto& noop = stats(row, ReclusterPolicy::Noop);
    const auto& dr = stats(row, ReclusterPolicy::DR);
    EXPECT_EQ(dr.finished, dr.runs);
    EXPECT_GE(noop.mean, 3.0 * dr.mean) << "alpha=" << row.rate;
  }
}

TEST_F(ReclusterPolicyStudy, DrNoSlowerThanDcOrSrWithinNoise) {
  for (const auto& row : *rows_) {
    const auto& dr = stats(row, ReclusterPolicy::DR);
    for (auto other : {ReclusterPolicy::DC, ReclusterPolicy::SR}) {
      const auto& o = stats(row, other);
      const double noise = 3.0 * std::hypot(dr.std_error, o.std_error);
      EXPECT_LE(dr.mean, o.mean + noise) << "alpha=" << row.rate << " DR vs " << policy_name(other);
    }
  }
}

TEST_F(ReclusterPolicyStudy, EveryPolicyBeatsNoopOnceTasksFail) {
  for (const auto& row : *rows_) {
    const double noop = stats(row, ReclusterPolicy::Noop).mean;
    for (auto p : {ReclusterPolicy::DC, ReclusterPolicy::SR, ReclusterPolicy::DR}) {
      EXPECT_LT(stats(row, p).mean, noop) << "alpha=" << row.rate << " " << policy_name(p);
    }
  }
}

}  // namespace
}  // namespace tharsis
