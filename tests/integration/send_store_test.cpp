// The scheduler's candidate query against a real MariaDB: best first, the operand's host
// preference attached, and — whatever the length of the unsent queue — only about LIMIT
// rows read (DESIGN §8: cost flat as tables grow), counted with the server's own
// per-session Handler_read_* counters rather than timed.
#include "db/send_store.h"

#include <gtest/gtest.h>

#include "tests/support/test_database.h"

namespace tharsis {
namespace {

using testing::TestDatabase;

constexpr int kQueue = 3000;

// Rows the server read for this session so far (all Handler_read_* counters).
int64_t rows_read(Database& db) {
  return db.query_int(
      "SELECT SUM(VARIABLE_VALUE) FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME LIKE "
      "'HANDLER_READ%'");
}

class SendStore : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = tdb_.open();
    db_->exec(
        "INSERT INTO workunit (appid, name, xml_doc, delay_bound, rsc_fpops_est) "
        "SELECT 1, CONCAT('wu', seq), '', 3600, 1e9 FROM seq_1_to_" +
        std::to_string(kQueue));
    // Result i for workunit i; priority 5 for every 1000th: those first, then the rest by id.
    db_->exec(
        "INSERT INTO result (workunitid, appid, name, xml_doc_in, xml_doc_out, stderr_out, priority) "
        "SELECT id, 1, CONCAT(name, '_0'), '', '', '', IF(id % 1000 = 0, 5, 0) FROM workunit ORDER BY id");
    db_->query("ANALYZE TABLE result, workunit, operand");  // (it returns rows: query, not exec)
  }

  // Rows read by one fetch of `limit` candidates, less what reading the counters costs.
  int64_t rows_read_by_fetch(int limit) {
    int64_t start = rows_read(*db_);
    int64_t overhead = rows_read(*db_) - start;
    int64_t before = rows_read(*db_);
    EXPECT_EQ(fetch_send_candidates(*db_, limit).size(), static_cast<size_t>(limit));
    return rows_read(*db_) - before - overhead;
  }

  TestDatabase tdb_;
  std::unique_ptr<Database> db_;
};

TEST_F(SendStore, CandidatesComeByPriorityThenAgeWithTheOperandsHostPreference) {
  db_->exec(
      "INSERT INTO operand (graph_id, name, workunitid, spec, preferred_host, preferred_until) "
      "VALUES (1, 'op', 2, '', 7, 1234)");
  auto candidates = fetch_send_candidates(*db_, 5);
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
  db_->exec(
      "INSERT INTO operand (graph_id, name, workunitid, spec) "
      "SELECT 1, CONCAT('op', id), id, '' FROM workunit WHERE id <= 500");
  db_->query("ANALYZE TABLE operand");  // (it returns rows: query, not exec)
  EXPECT_LT(rows_read_by_fetch(16), 200) << "with operands, the candidate query reads the whole queue";
}

}  // namespace
}  // namespace tharsis
