// commit_in_batches against a real MariaDB: units share a commit, and a unit whose row
// changed under it, or whose row another transaction holds locked, is skipped alone
// while the rest of its batch commits.
#include "lib/daemon/batch_commit.h"

#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "db/stale_row.h"
#include "db/workunit_store.h"
#include "tests/support/test_database.h"

namespace tharsis {
namespace {

using testing::TestDatabase;

class BatchCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = tdb_.open();
    // Five workunits planned at transition_time 1000 (the "state the rule saw").
    for (int i = 1; i <= 5; ++i) {
      WorkunitRow wu;
      wu.appid = 1;
      wu.name = "wu" + std::to_string(i);
      wu.transition_time = 1000;
      ids_.push_back(insert_workunit(*db_, wu));
    }
  }
  // The unit of work: move workunit i from 1000 to 2000, guarded like the daemons' writes.
  bool advance(Database& d, size_t i) {
    ++runs_;
    int64_t id = ids_[i];
    require_written(d.exec("UPDATE workunit SET transition_time = 2000 WHERE id = ? AND transition_time = 1000", id) > 0,
                    "workunit " + std::to_string(id));
    return true;
  }
  int64_t advanced() { return db_->query_int("SELECT COUNT(*) FROM workunit WHERE transition_time = 2000"); }
  int64_t commits() { return db_->query_int("SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'COM_COMMIT'"); }

  TestDatabase tdb_;
  std::unique_ptr<Database> db_;
  std::vector<int64_t> ids_;
  int runs_ = 0;
};

TEST_F(BatchCommit, UnitsShareOneCommitPerBatch) {
  int64_t before = commits();
  int written = commit_in_batches(*db_, 5, 2, [&](Database& d, size_t i) { return advance(d, i); });
  EXPECT_EQ(written, 5);
  EXPECT_EQ(advanced(), 5);
  EXPECT_EQ(commits() - before, 3);  // batches {1,2} {3,4} {5}
  // A re-run (as after a lost COMMIT acknowledgement) writes nothing: every unit is stale.
  EXPECT_EQ(commit_in_batches(*db_, 5, 50, [&](Database& d, size_t i) { return advance(d, i); }), 0);
  EXPECT_EQ(advanced(), 5);
}

TEST_F(BatchCommit, AUnitWhoseRowChangedIsSkippedAloneAndTheRestOfTheBatchCommits) {
  db_->exec("UPDATE workunit SET transition_time = 1500 WHERE id = ?", ids_[2]);  // changed after planning
  int written = commit_in_batches(*db_, 5, 50, [&](Database& d, size_t i) { return advance(d, i); });
  EXPECT_EQ(written, 4);
  EXPECT_EQ(advanced(), 4);
  EXPECT_EQ(db_->query_int("SELECT transition_time FROM workunit WHERE id = ?", ids_[2]), 1500);
  EXPECT_EQ(runs_, 3 + 4);  // rolled back at the third unit, then run again without it
}

TEST_F(BatchCommit, AUnitWhoseRowIsLockedElsewhereIsSkippedAloneAndTheRestOfTheBatchCommits) {
  // Another connection holds workunit 4 locked until the batch is done.
  std::promise<void> locked, done;
  std::thread holder([&] {
    auto other = tdb_.open();
    other->transaction([&](Database& d) {
      d.query_int("SELECT id FROM workunit WHERE id = ? FOR UPDATE", ids_[3]);
      locked.set_value();
      done.get_future().wait();
    });
  });
  locked.get_future().wait();
  db_->exec("SET SESSION innodb_lock_wait_timeout = 1");
  int written = commit_in_batches(*db_, 5, 50, [&](Database& d, size_t i) { return advance(d, i); });
  done.set_value();
  holder.join();
  EXPECT_EQ(written, 4);
  EXPECT_EQ(advanced(), 4);
  EXPECT_EQ(db_->query_int("SELECT transition_time FROM workunit WHERE id = ?", ids_[3]), 1000);
}

TEST_F(BatchCommit, AnErrorOtherThanAConflictRollsBackTheBatchAndPropagates) {
  EXPECT_THROW(commit_in_batches(*db_, 5, 50,
                                 [&](Database& d, size_t i) {
                                   if (i == 2) throw std::runtime_error("handler bug");
                                   return advance(d, i);
                                 }),
               std::runtime_error);
  EXPECT_EQ(advanced(), 0);  // units 0 and 1 of the same batch did not commit either
}

TEST_F(BatchCommit, StopIsCheckedBetweenBatches) {
  int written = commit_in_batches(
      *db_, 5, 2, [&](Database& d, size_t i) { return advance(d, i); }, [] { return true; });
  EXPECT_EQ(written, 2);  // the first batch always runs
  EXPECT_EQ(advanced(), 2);
}

}  // namespace
}  // namespace tharsis
