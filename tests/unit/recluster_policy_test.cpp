// Reclustering policies NOOP/DC/SR/DR over task ids, and the rule that no task is ever
// dropped or duplicated (check_plan, TaskLedger) over many random runs.
#include <gtest/gtest.h>

#include <deque>
#include <numeric>
#include <random>

#include "lib/recluster/policy.h"

namespace tharsis {
namespace {

std::vector<size_t> sizes(const std::vector<TaskGroup>& jobs) {
  std::vector<size_t> out;
  for (const auto& j : jobs) out.push_back(j.size());
  return out;
}

TEST(ReclusterPolicy, ClusterTasksBalancesJobSizes) {
  std::vector<TaskId> tasks(10);
  std::iota(tasks.begin(), tasks.end(), 0);
  EXPECT_EQ(sizes(cluster_tasks(tasks, 4)), (std::vector<size_t>{4, 3, 3}));
  EXPECT_EQ(sizes(cluster_tasks(tasks, 10)), (std::vector<size_t>{10}));
  EXPECT_EQ(sizes(cluster_tasks(tasks, 50)), (std::vector<size_t>{10}));
  EXPECT_EQ(sizes(cluster_tasks(tasks, 0)), std::vector<size_t>(10, 1));
  EXPECT_TRUE(cluster_tasks({}, 3).empty());
  const auto jobs = cluster_tasks(tasks, 3);
  EXPECT_EQ(jobs.front(), (TaskGroup{0, 1, 2}));  // order kept
  EXPECT_EQ(jobs.back(), (TaskGroup{8, 9}));
}

const TaskGroup kJob = {10, 11, 12, 13};
const std::vector<bool> kThreeFailed = {false, true, false, false};  // as in the seed's figures

TEST(ReclusterPolicy, SuccessfulJobIsDoneUnderEveryPolicy) {
  for (auto policy : {ReclusterPolicy::Noop, ReclusterPolicy::DC, ReclusterPolicy::SR, ReclusterPolicy::DR}) {
    const auto plan = plan_after_job(policy, kJob, {true, true, true, true}, 2);
    EXPECT_EQ(plan.done, kJob);
    EXPECT_TRUE(plan.new_jobs.empty());
  }
}

TEST(ReclusterPolicy, NoopRetriesTheWholeJobAsIs) {
  const auto plan = plan_after_job(ReclusterPolicy::Noop, kJob, kThreeFailed, 2);
  EXPECT_TRUE(plan.done.empty());
  EXPECT_EQ(plan.new_jobs, (std::vector<TaskGroup>{kJob}));
}

TEST(ReclusterPolicy, DcResplitsAllTasksOfAFailedJobByModelSize) {
  const auto plan = plan_after_job(ReclusterPolicy::DC, kJob, kThreeFailed, 2);
  EXPECT_TRUE(plan.done.empty());  // DC cannot tell which tasks failed
  EXPECT_EQ(plan.new_jobs, (std::vector<TaskGroup>{{10, 11}, {12, 13}}));
}

TEST(ReclusterPolicy, SrRegroupsOnlyFailedTasksIntoOneJob) {
  const auto plan = plan_after_job(ReclusterPolicy::SR, kJob, kThreeFailed, 1);
  EXPECT_EQ(plan.done, (TaskGroup{11}));
  EXPECT_EQ(plan.new_jobs, (std::vector<TaskGroup>{{10, 12, 13}}));
}

TEST(ReclusterPolicy, DrSplitsOnlyFailedTasksByModelSize) {
  const auto plan = plan_after_job(ReclusterPolicy::DR, kJob, kThreeFailed, 2);
  EXPECT_EQ(plan.done, (TaskGroup{11}));
  EXPECT_EQ(plan.new_jobs, (std::vector<TaskGroup>{{10, 12}, {13}}));
}

TEST(ReclusterPolicy, RejectsFlagsOfWrongLength) {
  EXPECT_THROW(plan_after_job(ReclusterPolicy::DR, kJob, {true}, 2), std::invalid_argument);
}

TEST(ReclusterPolicy, CheckPlanCatchesDroppedAndDuplicatedTasks) {
  RetryPlan dropped{{11}, {{10, 12}}};
  EXPECT_FALSE(check_plan(kJob, dropped).ok());
  RetryPlan duplicated{{11}, {{10, 12, 13}, {13}}};
  EXPECT_FALSE(check_plan(kJob, duplicated).ok());
  RetryPlan empty_job{{10, 11, 12, 13}, {{}}};
  EXPECT_FALSE(check_plan(kJob, empty_job).ok());
  RetryPlan good{{11}, {{13, 10}, {12}}};
  EXPECT_TRUE(check_plan(kJob, good).ok());
}

TEST(ReclusterPolicy, LedgerRefusesMovesFromTheWrongPlace) {
  TaskLedger ledger(4);
  ASSERT_TRUE(ledger.add_pending({0, 1}).ok());
  EXPECT_FALSE(ledger.add_pending({1, 2}).ok());  // 1 already pending
  EXPECT_FALSE(ledger.add_pending({2, 2}).ok());  // duplicated within one job
  EXPECT_FALSE(ledger.add_pending({4}).ok());     // unknown task
  EXPECT_FALSE(ledger.check().ok());              // 2 and 3 are in no job
  ASSERT_TRUE(ledger.add_pending({2, 3}).ok());
  EXPECT_TRUE(ledger.check().ok());
  EXPECT_FALSE(ledger.finish({0, 1}, {0}).ok());  // not in flight
  ASSERT_TRUE(ledger.start({0, 1}).ok());
  EXPECT_FALSE(ledger.finish({0, 1}, {2}).ok());  // 2 is not a task of this job
  ASSERT_TRUE(ledger.finish({0, 1}, {0, 1}).ok());
  EXPECT_EQ(ledger.done(), 2);
  EXPECT_FALSE(ledger.add_pending({0}).ok());  // done tasks never come back
  EXPECT_TRUE(ledger.check().ok());
  EXPECT_TRUE(ledger.check_full().ok());
}

// Runs a level of n tasks to completion with random success flags and random model sizes,
// resources r, jobs finishing in random order; every step goes through the ledger.
void run_random_level(ReclusterPolicy policy, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> n_dist(1, 300), k_dist(1, 40), r_dist(1, 12);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int64_t n = n_dist(rng), r = r_dist(rng);
  const double fail = unit(rng) * 0.3;
  TaskLedger ledger(n);
  std::vector<TaskId> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  std::deque<TaskGroup> pending;
  for (auto& job : cluster_tasks(all, k_dist(rng))) {
    ASSERT_TRUE(ledger.add_pending(job).ok());
    pending.push_back(std::move(job));
  }
  std::vector<TaskGroup> running;
  std::vector<int> done_times(static_cast<size_t>(n), 0);
  for (int step = 0; ledger.done() < n; ++step) {
    ASSERT_LT(step, 1'000'000) << "level did not finish";
    while (static_cast<int64_t>(running.size()) < r && !pending.empty()) {
      ASSERT_TRUE(ledger.start(pending.front()).ok());
      running.push_back(std::move(pending.front()));
      pending.pop_front();
    }
    std::uniform_int_distribution<size_t> pick(0, running.size() - 1);
    const size_t i = pick(rng);
    TaskGroup job = std::move(running[i]);
    running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    // A job is hit with probability `fail` (so NOOP's whole-job retries also finish); a hit
    // job loses each task with probability 1/2, giving failed sets of every size.
    std::vector<bool> ok(job.size(), true);
    if (unit(rng) < fail) {
      for (size_t t = 0; t < ok.size(); ++t) ok[t] = unit(rng) < 0.5;
    }
    const RetryPlan plan = plan_after_job(policy, job, ok, k_dist(rng));
    ASSERT_TRUE(check_plan(job, plan).ok());
    ASSERT_TRUE(ledger.finish(job, plan.done).ok());
    for (TaskId id : plan.done) ++done_times[static_cast<size_t>(id)];
    for (auto& next : plan.new_jobs) {
      ASSERT_TRUE(ledger.add_pending(next).ok());
      pending.push_back(std::move(next));
    }
    ASSERT_TRUE(ledger.check().ok());
    ASSERT_EQ(ledger.pending() + ledger.in_flight() + ledger.done(), n);
  }
  EXPECT_TRUE(ledger.check_full().ok());
  for (int times : done_times) ASSERT_EQ(times, 1);
  EXPECT_TRUE(pending.empty());
  EXPECT_TRUE(running.empty());
}

TEST(ReclusterPolicy, NoPolicyDropsOrDuplicatesTasksOverRandomRuns) {
  for (auto policy : {ReclusterPolicy::Noop, ReclusterPolicy::DC, ReclusterPolicy::SR, ReclusterPolicy::DR}) {
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      SCOPED_TRACE(std::string(policy_name(policy)) + " seed " + std::to_string(seed));
      run_random_level(policy, seed);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace tharsis
