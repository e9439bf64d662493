// The task app's work (client/lib/task_runner.h): per-task outputs, injected failures.
#include "client/lib/task_runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

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

// Sets the "NAME=value" entries for the test's lifetime.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::vector<std::string>& entries) {
    for (const auto& e : entries) {
      names_.push_back(e.substr(0, e.find('=')));
      setenv(names_.back().c_str(), e.substr(e.find('=') + 1).c_str(), 1);
    }
  }
  ~ScopedEnvironment() {
    for (const auto& name : names_) unsetenv(name.c_str());
  }

 private:
  std::vector<std::string> names_;
};

TEST(TaskRunner, EnvironmentHandsRatesSeedAndTaskTimeToTheApp) {
  HostFaults faults;
  faults.task_failure_rate = 0.05;
  faults.job_failure_rate = 1.0 / 3;
  faults.garbage_rate = 0.2;
  faults.slowness = 4;  // not the app's business
  auto entries = task_app_environment(faults, 18446744073709551615ULL, 0.25);
  ASSERT_EQ(entries.size(), 5u);
  ScopedEnvironment env(entries);
  uint64_t seed = 0;
  auto read = host_faults_from_env(seed);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->task_failure_rate, 0.05);
  EXPECT_EQ(read->job_failure_rate, 1.0 / 3);
  EXPECT_EQ(read->garbage_rate, 0.2);
  EXPECT_EQ(read->slowness, 1);
  EXPECT_EQ(seed, 18446744073709551615ULL);
  auto seconds = task_seconds_from_env();
  ASSERT_TRUE(seconds.ok()) << seconds.error();
  EXPECT_EQ(*seconds, 0.25);
}

TEST(TaskRunner, UnsetEnvironmentMeansNoFaultsAndNoSimulatedTime) {
  uint64_t seed = 0;
  auto read = host_faults_from_env(seed);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->task_failure_rate, 0);
  EXPECT_EQ(read->job_failure_rate, 0);
  EXPECT_EQ(seed, 1u);
  EXPECT_EQ(*task_seconds_from_env(), 0);
}

TEST(TaskRunner, BadEnvironmentIsAnErrorNamingTheVariable) {
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{kEnvTaskSeconds, "-1"},
                                                        {kEnvTaskSeconds, "3601"},
                                                        {kEnvTaskSeconds, "half"},
                                                        {kEnvTaskFailureRate, "1.5"},
                                                        {kEnvFaultSeed, "-3"},
                                                        {kEnvFaultSeed, "7x"}}) {
    ScopedEnvironment env({name + "=" + value});
    uint64_t seed = 0;
    auto faults = host_faults_from_env(seed);
    auto seconds = task_seconds_from_env();
    const std::string error = !faults.ok() ? faults.error() : !seconds.ok() ? seconds.error() : "";
    EXPECT_NE(error.find(name), std::string::npos) << name << "=" << value << " accepted";
  }
}

TEST(TaskRunner, RunFaultSeedIsReproducibleAndDiffersPerRunResultAndHost) {
  EXPECT_EQ(run_fault_seed(7, "cluster_1_5_1_0", 1), run_fault_seed(7, "cluster_1_5_1_0", 1));
  std::set<uint64_t> seeds;
  for (uint64_t host : {1, 2})
    for (const char* result : {"cluster_1_5_1_0", "cluster_1_6_1_0"})
      for (int run : {1, 2}) seeds.insert(run_fault_seed(host, result, run));
  EXPECT_EQ(seeds.size(), 8u);
}

}  // namespace
}  // namespace tharsis
