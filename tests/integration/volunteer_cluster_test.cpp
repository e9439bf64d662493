// Issue 7 end to end through real volunteers: clustered tasks (submit_tasks' code) run as
// jobs by the signed task_app on five simulated hosts in one tharsis-client process, over
// Apache, with the clusterer, transitioner, validator, assimilator and file_deleter as
// processes. The hosts inject task and job failures through the app (inject=app), one of
// them failing every job it runs. Under DR and SR: every task ends done exactly once with
// its right output, tools/check --settled is clean, only failed tasks were run again (each
// failure once), the job failures came from the app (exit status 1, not the client's
// kills), and failure_stat holds estimates of both rates above 0.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "client/lib/example_kernel.h"
#include "db/app_store.h"
#include "db/cluster_store.h"
#include "db/queue_stats.h"
#include "db/sql.h"
#include "tests/support/live_project.h"
#include "tests/support/time_scale.h"
#include "tools/lib/checker.h"
#include "tools/lib/submit_tasks.h"

namespace tharsis {
namespace {

using testing::LiveProject;

constexpr int kTasks = 200, kHosts = 5, kIterations = 20;

class VolunteerClusters : public ::testing::TestWithParam<ReclusterPolicy> {
 protected:
  // Every task done and every job's workunit settled, within `seconds`.
  bool wait_all_done(double seconds) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
      if (query_int(live_.db(), "SELECT COUNT(*) FROM cluster_task WHERE state <> ?",
                    ClusterTaskState::Done) == 0 &&
          workunit_progress(live_.db()).settled()) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  LiveProject live_;
};

TEST_P(VolunteerClusters, FaultyHostsOverHttpEveryTaskDoneOnceOnlyFailedTasksRetried) {
  live_.edit_config([](ProjectConfig& c) {
    c.recluster_policy = GetParam();
    c.initial_cluster_size = 5;  // 40 first jobs: some fail at β = 0.15 but for a chance of 0.15%
  });
  live_.publish_app("tasks", "task_app");
  std::vector<std::string> args{
      "--project_url",       live_.master_url(),
      "--max_request_delay", "0",
      "--max_backoff",       "0.3",
      "--transfer_backoff",  "0.2",
      "--max_seconds",       std::to_string(static_cast<int>(testing::scaled_seconds(120)))};
  // Host 0 fails every job it runs: under DR the 200 tasks can go out as a dozen jobs or
  // fewer, and at 0.15 alone none failing was a one-in-seven chance.
  for (int i = 0; i < kHosts; ++i) {
    args.push_back("--host");
    args.push_back("auth=" + live_.add_volunteer("tasks" + std::to_string(i)) +
                   ",ncpus=1,inject=app,task_failure=0.1,job_failure=" + (i == 0 ? "1" : "0.15") +
                   ",task_seconds=0.02,seed=" + std::to_string(70 + i));
  }
  live_.start_daemons({"clusterer"});
  testing::TempDir data("tharsis-cluster-hosts");
  auto client = live_.start_client("cluster_hosts", data.path(), args);
  // The hosts' first RPCs register them, so the clusterer sizes jobs for r = 5.
  for (int i = 0; i < 200 && query_int(live_.db(), "SELECT COUNT(*) FROM host WHERE rpc_time > 0") < kHosts;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  auto app = fetch_app_by_name(live_.db(), "tasks");
  ASSERT_TRUE(app);
  auto submitted = submit_cluster_tasks(live_.db(), app->id, generated_tasks("t", kTasks, kIterations));
  ASSERT_TRUE(submitted.ok()) << submitted.error();

  ASSERT_TRUE(wait_all_done(testing::scaled_seconds(100)))
      << "the tasks did not all finish; see the project's log/cluster_hosts.log";
  client->signal(SIGTERM);
  EXPECT_EQ(client->wait(20), 0);
  EXPECT_TRUE(live_.stop_daemons());

  // Every task done exactly once, with the output the task app computes.
  auto tasks = fetch_cluster_tasks_after(live_.db(), 0, 10 * kTasks);
  ASSERT_EQ(tasks.size(), static_cast<size_t>(kTasks));
  for (const auto& t : tasks) {
    ASSERT_EQ(t.state, ClusterTaskState::Done) << t.task_key;
    EXPECT_EQ(t.output, hash_chain_hex(t.task_key, kIterations)) << t.task_key << ": wrong output";
  }
  CheckReport report =
      check_project(live_.db(), live_.config(), std::time(nullptr), /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;

  // Faults happened, and only the failed tasks ran again: the task slots of all jobs are
  // the n tasks plus one per failure (all k tasks of a crashed job, the failed ones of
  // the others).
  const int64_t job_failures = query_int(live_.db(), "SELECT COUNT(*) FROM cluster_job WHERE job_failed = 1");
  const int64_t task_failures =
      query_int(live_.db(), "SELECT COALESCE(SUM(failed_tasks), 0) FROM cluster_job WHERE job_failed = 0");
  EXPECT_GT(job_failures, 0) << query_int(live_.db(), "SELECT COUNT(*) FROM cluster_job") << " jobs";
  EXPECT_GT(task_failures, 0);
  EXPECT_EQ(
      query_int(live_.db(), "SELECT COUNT(*) FROM cluster_job WHERE state <> ?", ClusterJobState::Settled),
      0);
  EXPECT_EQ(
      query_int(live_.db(), "SELECT SUM(k) FROM cluster_job"),
      kTasks + query_int(live_.db(), "SELECT SUM(IF(job_failed = 1, k, failed_tasks)) FROM cluster_job"));
  EXPECT_EQ(query_int(live_.db(), "SELECT SUM(attempts) FROM cluster_task"),
            query_int(live_.db(), "SELECT SUM(k) FROM cluster_job"));
  // The app failed those jobs (exit status 1); the client killed nothing of its own.
  EXPECT_EQ(query_int(live_.db(), "SELECT COUNT(*) FROM result WHERE outcome = 3"), job_failures);
  EXPECT_EQ(query_int(live_.db(), "SELECT COUNT(*) FROM result WHERE outcome = 3 AND exit_status <> 1"), 0);

  // The estimator saw both kinds of failure.
  auto stat = fetch_latest_failure_stat(live_.db(), app->id);
  ASSERT_TRUE(stat);
  EXPECT_GT(stat->alpha, 0);
  EXPECT_GT(stat->beta, 0);
  EXPECT_GT(stat->task_time, 0);
}

INSTANTIATE_TEST_SUITE_P(Policies, VolunteerClusters,
                         ::testing::Values(ReclusterPolicy::DR, ReclusterPolicy::SR),
                         [](const ::testing::TestParamInfo<ReclusterPolicy>& policy) {
                           return std::string(policy_name(policy.param));
                         });

}  // namespace
}  // namespace tharsis
