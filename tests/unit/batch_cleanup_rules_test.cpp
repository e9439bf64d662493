// The file deleter's rules for batches and sandboxes (daemons/file_deleter/batch_cleanup_rules.h).
#include "daemons/file_deleter/batch_cleanup_rules.h"

#include <gtest/gtest.h>

namespace tharsis {
namespace {

TEST(BatchCleanupRules, SandboxFileGoesOnlyUnusedAndUntouchedForTheGrace) {
  const int64_t now = 1'800'000'000;
  EXPECT_TRUE(may_remove_sandbox_file(false, now - kSandboxTouchGrace, now));
  EXPECT_FALSE(may_remove_sandbox_file(false, now - kSandboxTouchGrace + 1, now))
      << "touched within the grace";
  EXPECT_FALSE(may_remove_sandbox_file(true, now - 10 * kSandboxTouchGrace, now)) << "still held or named";
}

TEST(BatchCleanupRules, JobResultsDirNeverLeavesTheStore) {
  EXPECT_EQ(job_results_dir("/p/results", "rs_1"), "/p/results/rs_1");
  for (const char* bad : {"", ".", "..", "../x", "a/b", "/etc"})
    EXPECT_EQ(job_results_dir("/p/results", bad), "") << bad;
}

}  // namespace
}  // namespace tharsis
