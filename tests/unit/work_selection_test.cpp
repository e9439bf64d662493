// The scheduler's work choice (sched/lib/work_selection.h), one rule per test.
#include "sched/lib/work_selection.h"

#include <gtest/gtest.h>

namespace tharsis::work_selection_test {
namespace {

constexpr int64_t kNow = 1'700'000'000;

HostForScheduling linux_host() {
  HostForScheduling host;
  host.id = 7;
  host.platforms = {"x86_64-pc-linux-gnu"};
  host.memory_bytes = 8e9;
  host.disk_free_bytes = 100e9;
  host.flops = 1e9;
  host.ncpus = 1;
  host.work_request_seconds = 1e6;
  return host;
}

CandidateResult job(int64_t result_id, int64_t wu_id, int priority = 0) {
  CandidateResult c;
  c.result_id = result_id;
  c.workunit_id = wu_id;
  c.platform = "x86_64-pc-linux-gnu";
  c.rsc_fpops_est = 1e9;  // one second on the host
  c.rsc_memory_bound = 1e8;
  c.rsc_disk_bound = 1e8;
  c.delay_bound = 3600;
  c.priority = priority;
  return c;
}

std::vector<int64_t> chosen_ids(const Selection& s) {
  std::vector<int64_t> ids;
  for (const auto& c : s.chosen) ids.push_back(c.result_id);
  return ids;
}

TEST(WorkSelection, Scheduler_NeverSendsTwoResultsOfOneWorkunitToOneHost) {
  auto s = choose_work(linux_host(), {job(1, 10), job(2, 10), job(3, 11)}, {}, kNow);
  EXPECT_EQ(chosen_ids(s), (std::vector<int64_t>{1, 3}));
}

TEST(WorkSelection, Scheduler_SkipsWorkunitTheHostAlreadyHadAResultOf) {
  auto host = linux_host();
  host.workunits_held = {10};
  auto s = choose_work(host, {job(1, 10), job(2, 11)}, {}, kNow);
  EXPECT_EQ(chosen_ids(s), (std::vector<int64_t>{2}));
}

TEST(WorkSelection, Scheduler_SendsOnlyForTheHostsPlatforms) {
  auto other = job(1, 10);
  other.platform = "windows_x86_64";
  auto s = choose_work(linux_host(), {other, job(2, 11)}, {}, kNow);
  EXPECT_EQ(chosen_ids(s), (std::vector<int64_t>{2}));
  EXPECT_EQ(s.skipped_platform, 1);
}

TEST(WorkSelection, Scheduler_RespectsMemoryAndDiskBounds) {
  auto big_memory = job(1, 10);
  big_memory.rsc_memory_bound = 16e9;
  auto big_disk = job(2, 11);
  big_disk.rsc_disk_bound = 200e9;
  auto s = choose_work(linux_host(), {big_memory, big_disk, job(3, 12)}, {}, kNow);
  EXPECT_EQ(chosen_ids(s), (std::vector<int64_t>{3}));
  EXPECT_EQ(s.skipped_memory, 1);
  EXPECT_EQ(s.skipped_disk, 1);
}

TEST(WorkSelection, Scheduler_SkipsResultsTheHostCannotFinishBeforeTheDeadline) {
  auto slow = job(1, 10);
  slow.rsc_fpops_est = 1e9 * 7200;  // two hours on this host, one hour allowed
  auto s = choose_work(linux_host(), {slow, job(2, 11)}, {}, kNow);
  EXPECT_EQ(chosen_ids(s), (std::vector<int64_t>{2}));
  EXPECT_EQ(s.skipped_deadline, 1);
}

TEST(WorkSelection, Scheduler_SendsInPriorityOrder) {
  auto s = choose_work(linux_host(), {job(1, 10, 1), job(2, 11, 5), job(3, 12, 3)}, {}, kNow);
  EXPECT_EQ(chosen_ids(s), (std::vector<int64_t>{2, 3, 1}));
}

TEST(WorkSelection, Scheduler_PrefersJobsWhoseInputsTheHostHolds) {
  auto host = linux_host();
  host.files_held = {"chunk_a"};
  auto local = job(5, 10);
  local.input_files = {"chunk_a"};
  auto s = choose_work(host, {job(1, 11), local}, {}, kNow);
  EXPECT_EQ(chosen_ids(s), (std::vector<int64_t>{5, 1}));
}

TEST(WorkSelection, Scheduler_HoldsAJobForItsPreferredHostUntilTheWaitLapses) {
  auto reserved = job(1, 10);
  reserved.preferred_host = 99;
  reserved.preferred_until = kNow + 30;
  EXPECT_TRUE(choose_work(linux_host(), {reserved}, {}, kNow).chosen.empty());
  EXPECT_EQ(choose_work(linux_host(), {reserved}, {}, kNow + 31).chosen.size(), 1u);
  auto preferred_host = linux_host();
  preferred_host.id = 99;
  EXPECT_EQ(choose_work(preferred_host, {job(2, 11, 9), reserved}, {}, kNow).chosen[0].result_id, 1);
}

TEST(WorkSelection, Scheduler_StopsWhenTheWorkRequestIsCovered) {
  auto host = linux_host();
  host.work_request_seconds = 2.5;  // three one-second jobs cover it
  auto s = choose_work(host, {job(1, 1), job(2, 2), job(3, 3), job(4, 4)}, {}, kNow);
  EXPECT_EQ(s.chosen.size(), 3u);
  host.work_request_seconds = 0;
  EXPECT_TRUE(choose_work(host, {job(1, 1)}, {}, kNow).chosen.empty());
}

TEST(WorkSelection, Scheduler_StopsAtTheReplyLimitAndTheDailyQuota) {
  std::vector<CandidateResult> many;
  for (int i = 1; i <= 20; ++i) many.push_back(job(i, i));
  SelectionLimits limits;
  limits.max_results_per_reply = 5;
  EXPECT_EQ(choose_work(linux_host(), many, limits, kNow).chosen.size(), 5u);

  auto host = linux_host();
  host.daily_quota = 4;
  host.results_sent_today = 3;
  auto s = choose_work(host, many, {}, kNow);
  EXPECT_EQ(s.chosen.size(), 1u);
  EXPECT_TRUE(s.quota_reached);
}

TEST(WorkSelection, Scheduler_DailyQuotaHalvesOnErrorAndRecoversOnSuccess) {
  EXPECT_EQ(quota_after_error(0, 100), 50);
  EXPECT_EQ(quota_after_error(50, 100), 25);
  EXPECT_EQ(quota_after_error(1, 100), 1);
  EXPECT_EQ(quota_after_success(25, 100), 50);
  EXPECT_EQ(quota_after_success(80, 100), 100);
}

}  // namespace
}  // namespace tharsis::work_selection_test
