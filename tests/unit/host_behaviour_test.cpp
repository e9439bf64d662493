// Simulated host faults occur at the configured rates and reproducibly.
#include "client/lib/host_behaviour.h"

#include <gtest/gtest.h>

namespace tharsis {
namespace {

TEST(HostBehaviour, FailureRatesMatchConfiguration) {
  HostBehaviour host({0.1, 0.05, 0.02, -1, 1}, 42);
  int jobs = 20000, job_failures = 0, garbage = 0, task_failures = 0, tasks_run = 0;
  for (int i = 0; i < jobs; ++i) {
    int failed = 0;
    JobFate fate = host.run_job(4, failed);
    if (fate == JobFate::JobFailure) {
      ++job_failures;
    } else {
      task_failures += failed;
      tasks_run += 4;
      garbage += fate == JobFate::Garbage;
    }
  }
  EXPECT_NEAR(job_failures / double(jobs), 0.05, 0.01);
  EXPECT_NEAR(task_failures / double(tasks_run), 0.1, 0.01);
  // Garbage only among jobs with no failed task: 0.02 * 0.9^4 of the non-crashed jobs.
  EXPECT_NEAR(garbage / double(jobs - job_failures), 0.02 * 0.6561, 0.005);
}

TEST(HostBehaviour, SameSeedSameFates) {
  HostBehaviour a({0.3, 0.1, 0.1, -1, 1}, 7), b({0.3, 0.1, 0.1, -1, 1}, 7);
  for (int i = 0; i < 100; ++i) {
    int fa = 0, fb = 0;
    ASSERT_EQ(a.run_job(3, fa), b.run_job(3, fb));
    ASSERT_EQ(fa, fb);
  }
}

TEST(HostBehaviour, VanishesAfterItsTimeAndSlowsCompute) {
  HostBehaviour host({0, 0, 0, 30, 2.5}, 1);
  EXPECT_FALSE(host.vanished(29.9));
  EXPECT_TRUE(host.vanished(30));
  EXPECT_DOUBLE_EQ(host.compute_seconds(4), 10);
  HostBehaviour reliable({}, 1);
  EXPECT_FALSE(reliable.vanished(1e9));
  int failed = -1;
  EXPECT_EQ(reliable.run_job(10, failed), JobFate::Success);
  EXPECT_EQ(failed, 0);
}

}  // namespace
}  // namespace tharsis
