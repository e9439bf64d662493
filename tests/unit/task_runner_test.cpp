// The task app's work (client/lib/task_runner.h): per-task outputs, injected failures.
#include "client/lib/task_runner.h"

#include <gtest/gtest.h>

#include "client/lib/example_kernel.h"
#include "lib/recluster/task_io.h"

namespace tharsis {
namespace {

const std::string kList = render_task_list({{4, "3 a"}, {9, "1 b"}});

TEST(TaskRunner, RunsEveryTaskAndReportsItsHash) {
  HostBehaviour host(HostFaults{}, 1);
  auto run = run_task_job(kList, host);
  ASSERT_TRUE(run.ok()) << run.error();
  ASSERT_FALSE(run->crashed);
  auto report = parse_task_report(run->report);
  ASSERT_TRUE(report.ok()) << report.error();
  ASSERT_EQ(report->size(), 2u);
  EXPECT_EQ((*report)[0].id, 4);
  EXPECT_TRUE((*report)[0].ok);
  EXPECT_EQ((*report)[0].text, hash_chain_hex("a", 3));
  EXPECT_EQ((*report)[1].text, hash_chain_hex("b", 1));
}

TEST(TaskRunner, TaskFailuresAreReportedPerTask) {
  HostFaults faults;
  faults.task_failure_rate = 1.0;
  HostBehaviour host(faults, 1);
  auto run = run_task_job(kList, host);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->failed_tasks, 2);
  auto report = parse_task_report(run->report);
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE((*report)[0].ok);
  EXPECT_FALSE((*report)[1].ok);
}

TEST(TaskRunner, JobFailureCrashesWithoutReport) {
  HostFaults faults;
  faults.job_failure_rate = 1.0;
  HostBehaviour host(faults, 1);
  auto run = run_task_job(kList, host);
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->crashed);
  EXPECT_TRUE(run->report.empty());
}

TEST(TaskRunner, InjectedTaskFailureRateIsHonoured) {
  HostFaults faults;
  faults.task_failure_rate = 0.2;
  HostBehaviour host(faults, 7);
  std::vector<TaskSpec> tasks;
  for (int i = 1; i <= 2000; ++i) tasks.push_back({i, "1 x"});
  auto run = run_task_job(render_task_list(tasks), host);
  ASSERT_TRUE(run.ok());
  EXPECT_NEAR(run->failed_tasks / 2000.0, 0.2, 0.03);
}

TEST(TaskRunner, BadPayloadIsAnErrorNamingTheTask) {
  HostBehaviour host(HostFaults{}, 1);
  auto run = run_task_job(render_task_list({{5, "many x"}}), host);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("task 5"), std::string::npos);
}

}  // namespace
}  // namespace tharsis
