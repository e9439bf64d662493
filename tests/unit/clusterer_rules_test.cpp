// The clusterer's pure rules (daemons/clusterer/clusterer_rules.h): sizing per policy from
// the settled window, forming retry and fresh jobs, settling a finished job.
#include "daemons/clusterer/clusterer_rules.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tharsis::clusterer_rules_test {
namespace {

ClusterJobRow settled(int k, int failed, bool lost = false, double run_time = 0, double turnaround = 0) {
  ClusterJobRow j;
  j.k = k;
  j.failed_tasks = lost ? k : failed;
  j.job_failed = lost;
  j.run_time = run_time;
  j.turnaround = turnaround;
  j.state = ClusterJobState::Settled;
  return j;
}

std::vector<ClusterTaskRow> tasks(std::vector<std::pair<int64_t, int64_t>> id_retry_of) {
  std::vector<ClusterTaskRow> out;
  for (auto [id, retry_of] : id_retry_of) {
    ClusterTaskRow t;
    t.id = id;
    t.retry_of = retry_of;
    out.push_back(t);
  }
  return out;
}

SizingInputs seed_example(ReclusterPolicy policy) {
  SizingInputs in;
  in.policy = policy;
  in.fixed_k = 50;
  in.tasks_left = 1000;
  in.active_hosts = 20;
  in.prior_task_time = 5;
  in.prior_job_overhead = 5;
  return in;
}

TEST(ClustererRules, NoopAndSrKeepTheConfiguredK) {
  for (auto policy : {ReclusterPolicy::Noop, ReclusterPolicy::SR}) {
    SizingInputs in = seed_example(policy);
    in.fixed_k = 7;
    for (int i = 0; i < 50; ++i) in.window.push_back(settled(7, 3));
    EXPECT_EQ(size_clusters(in).k, 7) << policy_name(policy);
  }
}

TEST(ClustererRules, DcStartsFailureBlindAtNOverR) {
  EXPECT_EQ(size_clusters(seed_example(ReclusterPolicy::DC)).k, 50);
}

TEST(ClustererRules, DcAndDrTakeTheTfmOptimumForTheMeasuredAlpha) {
  // Window: 100 jobs of k = 10 and 100 of k = 1 (two sizes: the classifier can see that
  // job success decays with k), α = 3%, φ̄ = 5 s and D = 5 s measured.
  SizingInputs in = seed_example(ReclusterPolicy::DR);
  for (int i = 0; i < 100; ++i) in.window.push_back(settled(10, i % 10 < 3 ? 1 : 0, false, 50, 55));
  for (int i = 0; i < 100; ++i) in.window.push_back(settled(1, i % 100 < 3 ? 1 : 0, false, 5, 10));
  in.estimator.window_jobs = 200;
  ClusterSizing s = size_clusters(in);
  EXPECT_NEAR(s.params.phi, 5.0, 1e-9);
  EXPECT_NEAR(s.params.D, 5.0, 1e-9);
  EXPECT_EQ(s.estimates.model, FailureModel::Task);
  EXPECT_NEAR(s.estimates.alpha, 33.0 / (1100.0 + 10.0), 1e-9);  // prior: 10 tasks at α = 0
  // k* ≈ 5.2 at α = 0.03 for t = D = 5 (docs/reclustering.md); the estimate is a little under 3%.
  EXPECT_GE(s.k, 5);
  EXPECT_LE(s.k, 6);
  in.policy = ReclusterPolicy::DC;
  EXPECT_EQ(size_clusters(in).k, s.k);
}

TEST(ClustererRules, LostJobsCountForBetaOnlyNotAlpha) {
  SizingInputs in = seed_example(ReclusterPolicy::DR);
  in.estimator.alpha_prior_tasks = 0;
  in.estimator.beta_prior_jobs = 0;
  for (int i = 0; i < 10; ++i) in.window.push_back(settled(4, i == 0 ? 1 : 0, i >= 8));
  ClusterSizing s = size_clusters(in);
  EXPECT_DOUBLE_EQ(s.estimates.alpha, 1.0 / 32.0);  // 8 jobs ran, 32 tasks, 1 failed
  EXPECT_DOUBLE_EQ(s.estimates.beta, 2.0 / 10.0);   // 2 of 10 lost whole
}

TEST(ClustererRules, NoActiveHostCountsAsOne) {
  SizingInputs in = seed_example(ReclusterPolicy::DC);
  in.active_hosts = 0;
  EXPECT_EQ(size_clusters(in).params.r, 1);
}

TEST(ClustererRules, NoopAndSrRetryEachFailedJobAsOneJob) {
  auto retry = tasks({{1, 10}, {2, 10}, {3, 10}, {7, 11}});
  for (auto policy : {ReclusterPolicy::Noop, ReclusterPolicy::SR}) {
    auto jobs = form_retry_jobs(policy, retry, 2, 10);
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(jobs[0], (TaskGroup{1, 2, 3}));
    EXPECT_EQ(jobs[1], (TaskGroup{7}));
  }
}

TEST(ClustererRules, DcAndDrSplitEachFailedJobIntoJobsOfK) {
  auto retry = tasks({{1, 10}, {2, 10}, {3, 10}, {4, 10}, {7, 11}});
  auto jobs = form_retry_jobs(ReclusterPolicy::DR, retry, 2, 10);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0], (TaskGroup{1, 2}));
  EXPECT_EQ(jobs[1], (TaskGroup{3, 4}));
  EXPECT_EQ(jobs[2], (TaskGroup{7}));
}

TEST(ClustererRules, RetryJobsStopAtTheBudgetAndTheRestWait) {
  auto retry = tasks({{1, 10}, {2, 10}, {7, 11}, {8, 11}});
  auto jobs = form_retry_jobs(ReclusterPolicy::DR, retry, 1, 3);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[2], (TaskGroup{7}));
  // A group bigger than the whole budget still makes progress.
  EXPECT_EQ(form_retry_jobs(ReclusterPolicy::DC, retry, 1, 1).size(), 1u);
  EXPECT_EQ(form_retry_jobs(ReclusterPolicy::SR, retry, 1, 1), (std::vector<TaskGroup>{{1, 2}}));
}

TEST(ClustererRules, QueueKeptAtTheConfiguredJobsOrTwiceTheHosts) {
  EXPECT_EQ(new_job_budget(10, 4, 3), 7);
  EXPECT_EQ(new_job_budget(0, 4, 3), 5) << "2r when not configured";
  EXPECT_EQ(new_job_budget(0, 4, 8), 0);
  EXPECT_EQ(new_job_budget(5, 4, 9), 0) << "an overfull queue gets nothing, not a negative budget";
}

TEST(ClustererRules, ARetryReadCutAtItsLimitLeavesTheCutGroupForLater) {
  auto task = [](TaskId id, int64_t retry_of) {
    ClusterTaskRow t;
    t.id = id;
    t.retry_of = retry_of;
    return t;
  };
  std::vector<ClusterTaskRow> retry{task(1, 7), task(2, 7), task(3, 9), task(4, 9)};
  drop_cut_retry_group(retry, 4);
  ASSERT_EQ(retry.size(), 2u);
  EXPECT_EQ(retry.back().id, 2);
  std::vector<ClusterTaskRow> below_limit{task(1, 7), task(3, 9)};
  drop_cut_retry_group(below_limit, 4);
  EXPECT_EQ(below_limit.size(), 2u) << "nothing was cut";
  std::vector<ClusterTaskRow> one_group{task(1, 7), task(2, 7)};
  drop_cut_retry_group(one_group, 2);
  EXPECT_EQ(one_group.size(), 2u) << "a lone group goes as read";
}

TEST(ClustererRules, FreshJobsTakeKTasksEachUpToTheBudget) {
  auto fresh = tasks({{1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}});
  auto jobs = form_fresh_jobs(fresh, 3, 2);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0], (TaskGroup{1, 2, 3}));
  EXPECT_EQ(jobs[1], (TaskGroup{4, 5, 6}));
  jobs = form_fresh_jobs(fresh, 3, 10);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[2], (TaskGroup{7}));
  EXPECT_TRUE(form_fresh_jobs(fresh, 3, 0).empty());
}

std::vector<TaskReport> report(std::vector<bool> ok) {
  std::vector<TaskReport> r;
  for (size_t i = 0; i < ok.size(); ++i)
    r.push_back(TaskReport{static_cast<int64_t>(i + 1), ok[i], "out" + std::to_string(i + 1)});
  return r;
}

TEST(ClustererRules, SettleAllOkIsAllDoneWithOutputsForEveryPolicy) {
  for (auto policy : {ReclusterPolicy::Noop, ReclusterPolicy::DC, ReclusterPolicy::SR, ReclusterPolicy::DR}) {
    JobSettlement s = settle_job(policy, {1, 2, 3}, report({true, true, true}));
    EXPECT_EQ(s.done, (TaskGroup{1, 2, 3}));
    EXPECT_EQ(s.outputs, (std::vector<std::string>{"out1", "out2", "out3"}));
    EXPECT_TRUE(s.retry.empty());
    EXPECT_EQ(s.failed_tasks, 0);
  }
}

TEST(ClustererRules, SettleSrAndDrRetryOnlyTheFailedTasks) {
  for (auto policy : {ReclusterPolicy::SR, ReclusterPolicy::DR}) {
    JobSettlement s = settle_job(policy, {1, 2, 3, 4}, report({false, true, false, true}));
    EXPECT_EQ(s.done, (TaskGroup{2, 4}));
    EXPECT_EQ(s.outputs, (std::vector<std::string>{"out2", "out4"}));
    EXPECT_EQ(s.retry, (TaskGroup{1, 3}));
    EXPECT_EQ(s.failed_tasks, 2);
    EXPECT_FALSE(s.job_failed);
  }
}

TEST(ClustererRules, SettleNoopAndDcRetryTheWholeJobOnAnyTaskFailure) {
  for (auto policy : {ReclusterPolicy::Noop, ReclusterPolicy::DC}) {
    JobSettlement s = settle_job(policy, {1, 2, 3}, report({true, false, true}));
    EXPECT_TRUE(s.done.empty());
    EXPECT_EQ(s.retry, (TaskGroup{1, 2, 3}));
    EXPECT_EQ(s.failed_tasks, 1);
  }
}

TEST(ClustererRules, SettleWithoutReportOrWithAMismatchedOneIsAJobFailure) {
  JobSettlement lost = settle_job(ReclusterPolicy::DR, {1, 2}, std::nullopt);
  EXPECT_TRUE(lost.job_failed);
  EXPECT_EQ(lost.retry, (TaskGroup{1, 2}));
  EXPECT_EQ(lost.failed_tasks, 2);
  JobSettlement wrong = settle_job(ReclusterPolicy::DR, {1, 5}, report({true, true}));
  EXPECT_TRUE(wrong.job_failed);
  EXPECT_TRUE(wrong.done.empty());
}

TEST(ClustererRules, FailureStatRowCarriesTheSizingAndWindow) {
  SizingInputs in = seed_example(ReclusterPolicy::DR);
  in.window.push_back(settled(4, 1));
  ClusterSizing s = size_clusters(in);
  FailureStatRow row = failure_stat_row(9, 1234, ReclusterPolicy::DR, s);
  EXPECT_EQ(row.appid, 9);
  EXPECT_EQ(row.time, 1234);
  EXPECT_EQ(row.jobs, 1);
  EXPECT_EQ(row.tasks, 4);
  EXPECT_EQ(row.failed_tasks, 1);
  EXPECT_EQ(row.cluster_size, s.k);
  EXPECT_EQ(row.model, "TFM");
  EXPECT_EQ(row.policy, "DR");
  EXPECT_EQ(row.tasks_left, 1000);
  EXPECT_EQ(row.hosts, 20);
}

}  // namespace
}  // namespace tharsis::clusterer_rules_test
