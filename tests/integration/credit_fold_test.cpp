// Pending credit against a real MariaDB (db/credit_store.h, credit_fold.h): recorded in one
// statement summed per host and user, added to the totals only by a fold and only once; a
// fold passes over a host, user or pending row another transaction holds instead of
// waiting for it, and a later fold adds it.
#include "daemons/validator/lib/credit_fold.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <limits>
#include <string>

#include "db/credit_store.h"
#include "db/sql.h"
#include "tests/support/held_elsewhere.h"
#include "tests/support/test_database.h"

namespace tharsis::credit_fold_test {
namespace {

using Clock = std::chrono::steady_clock;

class CreditFoldTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = tdb_.open();
    exec(*db_, "INSERT INTO user (id, email_addr, name, authenticator) VALUES (7, 'a@b', 'a', 'auth7')");
    exec(*db_, "INSERT INTO host (id, userid) VALUES (3, 7), (4, 7)");
  }
  double host_credit(int64_t id) {
    return query_int(*db_, "SELECT ROUND(total_credit * 100) FROM host WHERE id = ?", id) / 100.0;
  }
  double user_credit(int64_t id) {
    return query_int(*db_, "SELECT ROUND(total_credit * 100) FROM user WHERE id = ?", id) / 100.0;
  }
  // Runs `body` while another connection's open transaction has run `statement` (a
  // locking read), then ends that transaction without a change.
  void while_held_elsewhere(const std::function<void(Database&)>& statement,
                            const std::function<void()>& body) {
    testing::while_held_elsewhere([&] { return tdb_.open(); }, statement, body);
  }
  // The fold, timed in seconds.
  std::pair<int, double> timed_fold(int limit = kCreditFoldRows) {
    auto start = Clock::now();
    int folded = fold_pending_credit(*db_, limit);
    return {folded, std::chrono::duration<double>(Clock::now() - start).count()};
  }

  testing::TestDatabase tdb_;
  std::unique_ptr<Database> db_;
};

TEST_F(CreditFoldTest, RecordedCreditReachesTheTotalsOnlyWhenFoldedAndOnlyOnce) {
  db_->transaction([&](Database& d) {
    record_pending_credit(d,
                          {{3, 7, 1.5}, {4, 7, 2.0}, {3, 7, 0.5}, {3, 0, 0.25}, {0, 7, -1.0}, {0, 0, 9.0}});
  });
  EXPECT_EQ(count_pending_credit(*db_), 4) << "one row per (host, user) pair, none for no one";
  EXPECT_EQ(host_credit(3), 0);
  EXPECT_EQ(user_credit(7), 0);

  EXPECT_EQ(fold_pending_credit(*db_), 4);
  EXPECT_EQ(host_credit(3), 2.25);
  EXPECT_EQ(host_credit(4), 2.0);
  EXPECT_EQ(user_credit(7), 3.0);
  EXPECT_EQ(count_pending_credit(*db_), 0);

  EXPECT_EQ(fold_pending_credit(*db_), 0);
  EXPECT_EQ(host_credit(3), 2.25);
  EXPECT_EQ(user_credit(7), 3.0);
}

TEST_F(CreditFoldTest, AHostAnotherTransactionHoldsIsPassedOverWithoutWaitingAndFoldedLater) {
  exec(*db_, "SET SESSION innodb_lock_wait_timeout = 5");  // a wait would show as 5 s
  db_->transaction([&](Database& d) { record_pending_credit(d, {{3, 7, 1.0}, {4, 7, 2.0}}); });
  while_held_elsewhere([](Database& d) { query_int(d, "SELECT id FROM host WHERE id = 3 FOR UPDATE"); },
                       [&] {
                         auto [folded, seconds] = timed_fold();
                         EXPECT_EQ(folded, 1);
                         EXPECT_LT(seconds, 2.0) << "the fold waited for the held host";
                         EXPECT_EQ(host_credit(4), 2.0);
                         EXPECT_EQ(user_credit(7), 2.0) << "host 3's row waits whole, its user's part too";
                         EXPECT_EQ(count_pending_credit(*db_), 1);
                       });
  EXPECT_EQ(fold_pending_credit(*db_), 1);
  EXPECT_EQ(host_credit(3), 1.0);
  EXPECT_EQ(user_credit(7), 3.0);
  EXPECT_EQ(count_pending_credit(*db_), 0);
}

TEST_F(CreditFoldTest, PendingRowsAnotherFoldHoldsAreNotFoldedTwice) {
  exec(*db_, "SET SESSION innodb_lock_wait_timeout = 5");
  db_->transaction([&](Database& d) { record_pending_credit(d, {{3, 7, 1.0}}); });
  while_held_elsewhere([](Database& d) { EXPECT_EQ(lock_pending_credit(d, 10).size(), 1u); },
                       [&] {
                         auto [folded, seconds] = timed_fold();
                         EXPECT_EQ(folded, 0);
                         EXPECT_LT(seconds, 2.0);
                         EXPECT_EQ(host_credit(3), 0);
                       });
  EXPECT_EQ(fold_pending_credit(*db_), 1);
  EXPECT_EQ(host_credit(3), 1.0);
  EXPECT_EQ(user_credit(7), 1.0);
}

TEST_F(CreditFoldTest, CreditOfAVanishedHostGoesToItsUserAndTheRowDoesNotStay) {
  db_->transaction([&](Database& d) { record_pending_credit(d, {{99, 7, 5.0}, {4, 98, 1.0}}); });
  EXPECT_EQ(fold_pending_credit(*db_), 2);
  EXPECT_EQ(user_credit(7), 5.0);
  EXPECT_EQ(host_credit(4), 1.0);
  EXPECT_EQ(count_pending_credit(*db_), 0);
}

TEST_F(CreditFoldTest, CreditNoTotalCanHoldIsNeverRecordedNorBlocksTheFold) {
  const double inf = std::numeric_limits<double>::infinity();
  const double huge = std::numeric_limits<double>::max();
  db_->transaction([&](Database& d) { record_pending_credit(d, {{3, 7, inf}, {4, 7, 1.0}}); });
  EXPECT_EQ(count_pending_credit(*db_), 1);
  db_->transaction([&](Database& d) {
    record_pending_credit(d, {{3, 0, huge}});
    record_pending_credit(d, {{3, 0, huge}});  // two rows whose sum overflows
  });
  EXPECT_EQ(fold_pending_credit(*db_), 3);
  EXPECT_EQ(host_credit(3), 0);
  EXPECT_EQ(host_credit(4), 1.0);
  EXPECT_EQ(count_pending_credit(*db_), 0);
}

TEST_F(CreditFoldTest, MoreRowsThanOneTransactionTakesAreAllFolded) {
  for (int i = 0; i < 7; ++i) {
    db_->transaction([&](Database& d) { record_pending_credit(d, {{3, 7, 1.0}}); });
  }
  EXPECT_EQ(fold_pending_credit(*db_, 3), 7);
  EXPECT_EQ(host_credit(3), 7.0);
  EXPECT_EQ(user_credit(7), 7.0);
}

}  // namespace
}  // namespace tharsis::credit_fold_test
