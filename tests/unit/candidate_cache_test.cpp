// A scheduler process's candidate cache (sched/lib/candidate_cache.h): when it reads the
// queue again, what it offers a host and in what order, and what a claim leaves.
#include "sched/lib/candidate_cache.h"

#include <gtest/gtest.h>

namespace tharsis {
namespace {

// Results 1..n in queue order, two per workunit (result 2k-1 and 2k of workunit k).
std::vector<QueuedResultRow> queue_of(int n) {
  std::vector<QueuedResultRow> rows;
  for (int i = 1; i <= n; ++i) {
    QueuedResultRow row;
    row.candidate.result_id = row.details.result_id = i;
    row.candidate.workunit_id = row.details.workunit_id = (i + 1) / 2;
    row.details.name = "result" + std::to_string(i);
    rows.push_back(row);
  }
  return rows;
}

std::vector<int64_t> ids(const std::vector<SendCandidateRow>& rows) {
  std::vector<int64_t> out;
  for (const auto& row : rows) out.push_back(row.result_id);
  return out;
}

const auto kAny = [](const SendCandidateRow&) { return true; };

TEST(CandidateCache, IsReadWhenNeverReadWhenOldAndWhenAFullReadRunsLow) {
  CandidateCache cache(QueuePart{4, 1});
  EXPECT_TRUE(cache.refill_due(100));
  cache.refill(queue_of(CandidateCache::kCapacity), 100);
  EXPECT_FALSE(cache.refill_due(100));
  EXPECT_FALSE(cache.refill_due(100 + CandidateCache::kMaxAgeSeconds - 1));
  EXPECT_TRUE(cache.refill_due(100 + CandidateCache::kMaxAgeSeconds));
  int64_t next = 1;
  while (cache.size() >= CandidateCache::kLowWater) {
    cache.claimed(next, (next + 1) / 2, 7, true);
    ++next;
  }
  EXPECT_TRUE(cache.refill_due(100)) << "fewer than kLowWater rows left of a full read";
  // A read short of kCapacity took all the part had: running low is no reason to read again.
  cache.refill(queue_of(CandidateCache::kLowWater), 200);
  cache.claimed(1, 1, 7, true);
  EXPECT_FALSE(cache.refill_due(200));
  EXPECT_TRUE(cache.refill_due(200 + CandidateCache::kMaxAgeSeconds));
  EXPECT_EQ(cache.part().count, 4);
  EXPECT_EQ(cache.part().index, 1);
}

// Between requests a pool worker reads ahead: a second before the rows would be due, or
// at twice the low water of a full read, so the request that would have waited does not.
TEST(CandidateCache, IsReadAheadASecondBeforeItIsDueOrAtTwiceTheLowWater) {
  CandidateCache cache(QueuePart{});
  EXPECT_TRUE(cache.read_ahead_due(100)) << "never read";
  cache.refill(queue_of(CandidateCache::kCapacity), 100);
  const int64_t ahead = 100 + CandidateCache::kMaxAgeSeconds - CandidateCache::kReadAheadSeconds;
  EXPECT_FALSE(cache.read_ahead_due(ahead - 1));
  EXPECT_TRUE(cache.read_ahead_due(ahead));
  EXPECT_FALSE(cache.refill_due(ahead)) << "a request now would still take from the rows";
  int64_t next = 1;
  while (cache.size() >= 2 * CandidateCache::kLowWater) {
    EXPECT_FALSE(cache.read_ahead_due(100)) << cache.size() << " rows left";
    cache.claimed(next, (next + 1) / 2, 7, true);
    ++next;
  }
  EXPECT_TRUE(cache.read_ahead_due(100)) << "fewer than twice kLowWater left of a full read";
  EXPECT_FALSE(cache.refill_due(100));
  // A short read took all the part had: only its age makes it due.
  cache.refill(queue_of(3), 200);
  EXPECT_FALSE(cache.read_ahead_due(200));
}

TEST(CandidateCache, OffersInQueueOrderWhatTheHostTakesUpToTheLimit) {
  CandidateCache cache(QueuePart{});
  cache.refill(queue_of(10), 0);
  EXPECT_EQ(ids(cache.offer(3, 5, kAny)), (std::vector<int64_t>{1, 2, 3}));
  auto odd_only = [](const SendCandidateRow& row) { return row.result_id % 2 == 1; };
  EXPECT_EQ(ids(cache.offer(3, 5, odd_only)), (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(ids(cache.offer(100, 5, odd_only)), (std::vector<int64_t>{1, 3, 5, 7, 9}));
  EXPECT_EQ(cache.size(), 10u) << "offering takes nothing away";
}

TEST(CandidateCache, AClaimTriedTakesTheRowAndAWonOneItsDetailsAndKeepsItsWorkunitFromThatHost) {
  CandidateCache cache(QueuePart{});
  cache.refill(queue_of(6), 0);
  auto won = cache.claimed(1, 1, 5, /*won=*/true);
  ASSERT_TRUE(won.has_value());
  EXPECT_EQ(won->name, "result1") << "what the reply says of it comes with the row";
  EXPECT_FALSE(cache.claimed(3, 2, 5, /*won=*/false).has_value());  // lost: another scheduler sent it
  EXPECT_FALSE(cache.claimed(99, 50, 5, /*won=*/true).has_value()) << "not a row of the cache";
  EXPECT_EQ(cache.size(), 4u);
  // Host 5 has workunit 1's result 1: not its sibling 2. Workunit 2's claim was lost, so
  // host 5 may still take result 4.
  EXPECT_EQ(ids(cache.offer(10, 5, kAny)), (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(ids(cache.offer(10, 6, kAny)), (std::vector<int64_t>{2, 4, 5, 6}));
}

TEST(CandidateCache, ARefusedClaimLeavesTheRowForOtherHostsOnly) {
  CandidateCache cache(QueuePart{});
  cache.refill(queue_of(4), 0);
  cache.refused(1, 5);  // host 5 had a result of workunit 1 (sent elsewhere, or reported)
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_EQ(ids(cache.offer(10, 5, kAny)), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(ids(cache.offer(10, 6, kAny)), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(CandidateCache, WhoHadWhatIsKeptAcrossARefillOnlyForWorkunitsStillQueued) {
  CandidateCache cache(QueuePart{});
  cache.refill(queue_of(4), 0);
  cache.claimed(1, 1, 5, true);
  cache.claimed(3, 2, 5, true);
  // Read again: result 2 (workunit 1) still queued, workunit 2 gone, then requeued later.
  std::vector<QueuedResultRow> again = queue_of(2);
  again.erase(again.begin());  // result 2 only
  cache.refill(again, 10);
  EXPECT_TRUE(cache.offer(10, 5, kAny).empty()) << "host 5 had workunit 1";
  QueuedResultRow requeued;
  requeued.candidate.result_id = 9;
  requeued.candidate.workunit_id = 2;
  cache.refill({requeued}, 20);
  EXPECT_EQ(ids(cache.offer(10, 5, kAny)), (std::vector<int64_t>{9}))
      << "what host 5 had of a workunit no longer queued is forgotten at the next read";
}

}  // namespace
}  // namespace tharsis
