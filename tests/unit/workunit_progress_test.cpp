// WorkunitProgress::settled() must mean what `check --settled` demands, so a run that
// stops at "settled" never leaves work for the checker to flag.
#include <gtest/gtest.h>

#include "db/queue_stats.h"

namespace tharsis {
namespace {

WorkunitProgress all_done(int64_t workunits) {
  WorkunitProgress p;
  p.total = p.with_canonical = p.assimilated = p.files_deleted = workunits;
  return p;
}

TEST(WorkunitProgress, SettledWhenEverythingIsDoneAndDeleted) { EXPECT_TRUE(all_done(5).settled()); }

TEST(WorkunitProgress, NotSettledWithoutWorkunits) { EXPECT_FALSE(all_done(0).settled()); }

TEST(WorkunitProgress, NotSettledWhileAResultIsOut) {
  auto p = all_done(5);
  p.results_not_over = 1;
  EXPECT_FALSE(p.settled());
}

TEST(WorkunitProgress, NotSettledWhileAWorkunitsFilesRemain) {
  auto p = all_done(5);
  p.files_deleted = 4;
  EXPECT_FALSE(p.settled());
}

// The file deleter clears a pass's workunits before its results: with every workunit's
// files gone, a result's outputs may still wait.
TEST(WorkunitProgress, NotSettledWhileAResultsOutputsWaitForDeletion) {
  auto p = all_done(5);
  p.result_files_pending = 1;
  EXPECT_FALSE(p.settled());
}

}  // namespace
}  // namespace tharsis
