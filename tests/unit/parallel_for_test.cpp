// lib/parallel_for.h: every index once, the lowest failure reported, nothing left running.
#include "lib/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tharsis {
namespace {

TEST(ParallelForEach, CallsEveryIndexExactlyOnce) {
  for (size_t threads : {0, 1, 3, 8, 64}) {
    std::vector<std::atomic<int>> calls(1000);
    Status done = parallel_for_each(calls.size(), threads, [&](size_t i) {
      ++calls[i];
      return Status::success();
    });
    EXPECT_TRUE(done.ok()) << done.error();
    for (size_t i = 0; i < calls.size(); ++i)
      ASSERT_EQ(calls[i].load(), 1) << "index " << i << ", " << threads;
  }
}

TEST(ParallelForEach, NothingToDoIsSuccess) {
  EXPECT_TRUE(parallel_for_each(0, 8, [](size_t) -> Status { return make_error("called"); }).ok());
}

TEST(ParallelForEach, UsesSeveralThreadsWhenTheWorkWaits) {
  std::mutex mutex;
  std::set<std::thread::id> seen;
  Status done = parallel_for_each(16, 4, [&](size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(std::this_thread::get_id());
    return Status::success();
  });
  ASSERT_TRUE(done.ok());
  EXPECT_GT(seen.size(), 1u);
  EXPECT_LE(seen.size(), 4u);
}

TEST(ParallelForEach, ReportsTheLowestFailingIndexAfterAllCallsReturned) {
  std::atomic<int> running{0}, calls{0};
  Status done = parallel_for_each(200, 8, [&](size_t i) -> Status {
    ++running;
    ++calls;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    --running;
    if (i == 150 || i == 40 || i == 170) return make_error("failed at " + std::to_string(i));
    return Status::success();
  });
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error(), "failed at 40");
  EXPECT_EQ(running.load(), 0);
  EXPECT_EQ(calls.load(), 200);
}

TEST(ParallelForEach, AnExceptionBecomesAFailure) {
  Status done = parallel_for_each(10, 3, [](size_t i) -> Status {
    if (i == 7) throw std::runtime_error("disk full");
    return Status::success();
  });
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error(), "disk full");
}

}  // namespace
}  // namespace tharsis
