// The scheduler's candidate query against a real MariaDB: best first, the operand's host
// preference attached, and — whatever the length of the unsent queue — only about LIMIT
// rows read (the target: cost flat as tables grow, docs/benchmarks.md), counted with the server's own
// per-session Handler_read_* counters rather than timed.
#include "db/send_store.h"

#include <gtest/gtest.h>

#include <iostream>

#include "db/sql.h"
#include "tests/support/rows_read.h"
#include "tests/support/test_database.h"

namespace tharsis {
namespace {

using testing::TestDatabase;

constexpr int kQueue = 3000;

using testing::rows_read;

class SendStore : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = tdb_.open();
    exec(*db_,
         "INSERT INTO workunit (appid, name, xml_doc, delay_bound, rsc_fpops_est) "
         "SELECT 1, CONCAT('wu', seq), '', 3600, 1e9 FROM seq_1_to_" +
             std::to_string(kQueue));
    // Result i for workunit i; priority 5 for every 1000th: those first, then the rest by id.
    exec(*db_,
         "INSERT INTO result (workunitid, appid, name, xml_doc_in, xml_doc_out, priority) "
         "SELECT id, 1, CONCAT(name, '_0'), '', '', IF(id % 1000 = 0, 5, 0) FROM workunit ORDER BY id");
    query(*db_, "ANALYZE TABLE result, workunit, operand");  // (it returns rows: query, not exec)
  }

  // Rows read by one fetch of `limit` candidates for `host`, less what reading the counters costs.
  int64_t rows_read_by_fetch(int limit, int64_t host = kHost) {
    int64_t start = rows_read(*db_);
    int64_t overhead = rows_read(*db_) - start;
    int64_t before = rows_read(*db_);
    EXPECT_EQ(fetch_send_candidates(*db_, host, limit).size(), static_cast<size_t>(limit));
    return rows_read(*db_) - before - overhead;
  }
  static constexpr int64_t kHost = 77;

  TestDatabase tdb_;
  std::unique_ptr<Database> db_;
};

TEST_F(SendStore, CandidatesComeByPriorityThenAgeWithTheOperandsHostPreference) {
  exec(*db_,
       "INSERT INTO operand (graph_id, name, workunitid, spec, preferred_host, preferred_until) "
       "VALUES (1, 'op', 2, '', 7, 1234)");
  auto candidates = fetch_send_candidates(*db_, kHost, 5);
  ASSERT_EQ(candidates.size(), 5u);
  EXPECT_EQ(candidates[0].workunit_id, 1000);
  EXPECT_EQ(candidates[1].workunit_id, 2000);
  EXPECT_EQ(candidates[2].workunit_id, 3000);
  EXPECT_EQ(candidates[3].workunit_id, 1);
  EXPECT_EQ(candidates[4].workunit_id, 2);
  EXPECT_EQ(candidates[4].preferred_host, 7);
  EXPECT_EQ(candidates[4].preferred_until, 1234);
  EXPECT_EQ(candidates[3].preferred_host, 0);
  EXPECT_EQ(candidates[0].delay_bound, 3600);
}

// A LEFT JOIN to an (empty or small) operand table once made the optimizer join the whole
// queue and sort it: thousands of rows per RPC instead of a few dozen.
TEST_F(SendStore, FetchReadsAboutLimitRowsNotTheWholeUnsentQueue) {
  EXPECT_LT(rows_read_by_fetch(16), 200) << "the candidate query reads the whole queue of " << kQueue;
  exec(*db_,
       "INSERT INTO operand (graph_id, name, workunitid, spec) "
       "SELECT 1, CONCAT('op', id), id, '' FROM workunit WHERE id <= 500");
  query(*db_, "ANALYZE TABLE operand");  // (it returns rows: query, not exec)
  EXPECT_LT(rows_read_by_fetch(16), 200) << "with operands, the candidate query reads the whole queue";
}

// Issue 13 item 12: a host that had one result of each of the first workunits was told
// "No tasks are available" while work it could take waited deeper in the queue: the
// scheduler looked at the first 200 candidates only. The query now passes over workunits
// the host had a result of, reading the rows it skips and not the rest of the queue.
TEST_F(SendStore, CandidatesPassOverWorkunitsTheHostHadAResultOfReadingOnlyWhatTheySkip) {
  constexpr int kHeld = 1000;  // host 7 had a result (now over) of each of workunits 1..1000
  exec(*db_,
       "INSERT INTO result (workunitid, appid, name, server_state, outcome, hostid, xml_doc_in, xml_doc_out) "
       "SELECT id, 1, CONCAT(name, '_1'), 5, 1, 7, '', '' FROM workunit WHERE id <= ?",
       kHeld);
  query(*db_, "ANALYZE TABLE result");
  auto candidates = fetch_send_candidates(*db_, 7, 16);
  ASSERT_EQ(candidates.size(), 16u);
  EXPECT_EQ(candidates[0].workunit_id, 2000);  // priority 5 (1000's is held)
  EXPECT_EQ(candidates[1].workunit_id, 3000);
  EXPECT_EQ(candidates[2].workunit_id, kHeld + 1);
  for (const auto& c : candidates) EXPECT_GT(c.workunit_id, kHeld);
  // Another host still gets the head of the queue.
  EXPECT_EQ(fetch_send_candidates(*db_, 8, 1).at(0).workunit_id, 1000);

  // The plan: res_send walked in order (no filesort), the host's results looked up per row
  // walked (a dependent subquery on res_wu_host), not materialized whole.
  auto plan =
      query(*db_,
            "SET STATEMENT optimizer_switch = 'exists_to_in=off' FOR EXPLAIN SELECT r.id FROM result r JOIN "
            "workunit w "
            "ON w.id = r.workunitid WHERE r.server_state = 2 AND NOT EXISTS (SELECT 1 FROM result h WHERE "
            "h.workunitid "
            "= r.workunitid AND h.hostid = 7) ORDER BY r.priority DESC, r.id LIMIT 16");
  while (plan->next()) {
    std::string extra = plan->isNull("Extra") ? "" : std::string(plan->getString("Extra"));
    std::string key = plan->isNull("key") ? "" : std::string(plan->getString("key"));
    EXPECT_EQ(extra.find("filesort"), std::string::npos);
    if (std::string(plan->getString("table")) == "h") {
      EXPECT_EQ(std::string(plan->getString("select_type")), "DEPENDENT SUBQUERY");
      EXPECT_EQ(key, "res_wu_host");
    }
  }
  int64_t skipping = rows_read_by_fetch(16, 7);
  int64_t fresh = rows_read_by_fetch(16, 8);
  int64_t before = rows_read(*db_);
  int64_t overhead = rows_read(*db_) - before;
  before = rows_read(*db_);
  fetch_send_candidates(*db_, 16);  // the query without the host's filter, as it was
  int64_t unfiltered = rows_read(*db_) - before - overhead;
  std::cout << "rows read: host skipping " << kHeld << " workunits " << skipping << ", fresh host " << fresh
            << ", without the filter " << unfiltered << "\n";
  // The common path pays one res_wu_host lookup per candidate (two handler reads), no more.
  EXPECT_LE(fresh, unfiltered + 2 * 16) << "the common path got dearer by more than a lookup per candidate";
  EXPECT_LT(skipping, 3 * kHeld) << "the query reads more than the rows it skips";
  // The host's own results are looked up, not read whole: 1000 more of them change nothing.
  exec(*db_,
       "INSERT INTO result (workunitid, appid, name, server_state, outcome, hostid, xml_doc_in, xml_doc_out) "
       "SELECT id, 1, CONCAT(name, '_2'), 5, 1, 8, '', '' FROM workunit WHERE id > 2000");
  query(*db_, "ANALYZE TABLE result");
  EXPECT_LT(rows_read_by_fetch(16, 8), 200) << "a host's history is read whole";
  EXPECT_LT(fresh, 200) << "the common path reads the whole queue";
}

// A scheduler pool process's part of the queue (the workunits whose id is its slot modulo
// the pool's size, and every part's results reserved for a host now), read from the
// res_send index: the other parts' entries are passed over without reading their rows,
// and the reserved ones come from the operands holding a reservation, not from the queue.
TEST_F(SendStore, APartOfTheQueueIsReadFromTheIndexWithTheResultsReservedNowFromEveryPart) {
  constexpr int64_t kNow = 1'000'000;
  exec(*db_,
       "INSERT INTO operand (graph_id, name, workunitid, spec, preferred_host, preferred_until) VALUES "
       "(1, 'reserved', 7, '', 99, ?), (1, 'expired', 9, '', 99, ?), (1, 'unreserved', 12, '', 0, ?)",
       kNow + 100, kNow, kNow + 100);
  exec(*db_,  // more operands without a reservation, as a graph's queued chunks have
       "INSERT INTO operand (graph_id, name, workunitid, spec) SELECT 2, CONCAT('op', seq), seq, '' FROM "
       "seq_100_to_999");
  query(*db_, "ANALYZE TABLE operand");
  auto part = fetch_queue_part(*db_, QueuePart{8, 3}, kNow, 16);
  ASSERT_EQ(part.size(), 16u);
  std::vector<int64_t> expected = {3, 7, 11};  // part 3 by id (no priority-5 workunit in it), and 7
  for (int64_t id = 19; expected.size() < 16; id += 8) expected.push_back(id);
  for (size_t i = 0; i < part.size(); ++i) EXPECT_EQ(part[i].candidate.workunit_id, expected[i]) << i;
  EXPECT_EQ(part[1].candidate.preferred_host, 99);
  EXPECT_EQ(part[1].details.wu_name, "wu7");
  // Part 0 has the priority-5 workunits first; 7 is in it as well.
  auto zero = fetch_queue_part(*db_, QueuePart{8, 0}, kNow, 5);
  ASSERT_EQ(zero.size(), 5u);
  EXPECT_EQ(zero[0].candidate.workunit_id, 1000);
  EXPECT_EQ(zero[2].candidate.workunit_id, 3000);
  EXPECT_EQ(zero[3].candidate.workunit_id, 7);
  EXPECT_EQ(zero[4].candidate.workunit_id, 8);
  // Rows read: those returned (each with its workunit and operand lookups), not the
  // entries of the other parts walked past: the same for a part of 2 as of 32.
  auto rows_read_by_part_read = [&](QueuePart of) {
    int64_t before = rows_read(*db_);
    int64_t overhead = rows_read(*db_) - before;
    before = rows_read(*db_);
    EXPECT_EQ(fetch_queue_part(*db_, of, kNow, 64).size(), 64u);
    return rows_read(*db_) - before - overhead;
  };
  int64_t of_2 = rows_read_by_part_read(QueuePart{2, 1});
  int64_t of_32 = rows_read_by_part_read(QueuePart{32, 5});
  std::cout << "rows read by a part read of 64 rows: of 2 parts " << of_2 << ", of 32 parts " << of_32
            << "\n";
  EXPECT_LT(of_32, of_2 + 64) << "the part read reads the other parts' rows";
}

// Concurrent requests read their candidates with locks, passing over the rows another holds:
// each takes a different part of the queue's head at once, instead of all racing for the
// same best rows and losing their claims (issue 16: 2.9 claim attempts per request before).
TEST_F(SendStore, LockingReadsOfConcurrentRequestsTakeDisjointCandidatesWithoutWaiting) {
  auto other = tdb_.open();
  exec(*other, "SET SESSION innodb_lock_wait_timeout = 2");  // a wait would fail the test, not hang it
  SendFilter first, second;
  first.host_id = 1;
  second.host_id = 2;
  auto ids = [](const std::vector<SendCandidateRow>& rows) {
    std::vector<int64_t> out;
    for (const auto& r : rows) out.push_back(r.result_id);
    return out;
  };
  std::vector<int64_t> held, passed_over, after_commit;
  db_->transaction([&](Database& d) {
    held = ids(lock_send_candidates(d, first, 16));
    other->transaction([&](Database& o) { passed_over = ids(lock_send_candidates(o, second, 16)); });
  });
  other->transaction([&](Database& o) { after_commit = ids(lock_send_candidates(o, second, 16)); });
  ASSERT_EQ(held.size(), 16u);
  ASSERT_EQ(passed_over.size(), 16u);
  std::vector<int64_t> unlocked = ids(fetch_send_candidates(*db_, second, 32));
  // The first request has the queue's best 16; the second, at the same time, the next 16 in order.
  EXPECT_EQ(held, std::vector<int64_t>(unlocked.begin(), unlocked.begin() + 16));
  EXPECT_EQ(passed_over, std::vector<int64_t>(unlocked.begin() + 16, unlocked.end()));
  // Once the first commits (without claiming), its rows are the best again for anyone.
  EXPECT_EQ(after_commit, held);
}

}  // namespace
}  // namespace tharsis
