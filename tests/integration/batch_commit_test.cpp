// commit_in_batches and the batch reads against a real MariaDB: units share a commit, a
// unit whose row changed under it, or whose row another transaction holds locked, is
// skipped alone while the rest of its batch commits, and a batch read locks only its rows.
#include "lib/daemon/batch_commit.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "db/locked_workunits.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "db/stale_row.h"
#include "db/workunit_store.h"
#include "tests/support/test_database.h"
#include "tests/support/workunit_batch.h"

namespace tharsis {
namespace {

using testing::TestDatabase;

using testing::with_workunit_locked_elsewhere;

class BatchCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = tdb_.open();
    // Five workunits planned at transition_time 1000 (the "state the rule saw").
    for (const auto& wu : testing::insert_planned_workunits(*db_, 5, 1000)) ids_.push_back(wu.id);
  }
  // The unit of work: move workunit i from 1000 to 2000, guarded like the daemons' writes.
  bool advance(Database& d, int64_t id) {
    ++runs_;
    require_written(
        exec(d, "UPDATE workunit SET transition_time = 2000 WHERE id = ? AND transition_time = 1000", id) > 0,
        "workunit " + std::to_string(id));
    return true;
  }
  int64_t advanced() { return query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE transition_time = 2000"); }
  int64_t commits() {
    return query_int(
        *db_,
        "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'COM_COMMIT'");
  }

  TestDatabase tdb_;
  std::unique_ptr<Database> db_;
  std::vector<int64_t> ids_;
  int runs_ = 0;
};

TEST_F(BatchCommit, UnitsShareOneCommitPerBatch) {
  int64_t before = commits();
  int written = commit_in_batches(*db_, ids_, 2, [&](Database& d, int64_t id) { return advance(d, id); });
  EXPECT_EQ(written, 5);
  EXPECT_EQ(advanced(), 5);
  EXPECT_EQ(commits() - before, 3);  // batches {1,2} {3,4} {5}
  // A re-run (as after a lost COMMIT acknowledgement) writes nothing: every unit is stale.
  EXPECT_EQ(commit_in_batches(*db_, ids_, 50, [&](Database& d, int64_t id) { return advance(d, id); }), 0);
  EXPECT_EQ(advanced(), 5);
}

TEST_F(BatchCommit, AUnitWhoseRowChangedIsSkippedAloneAndTheRestOfTheBatchCommits) {
  exec(*db_, "UPDATE workunit SET transition_time = 1500 WHERE id = ?", ids_[2]);  // changed after planning
  int written = commit_in_batches(*db_, ids_, 50, [&](Database& d, int64_t id) { return advance(d, id); });
  EXPECT_EQ(written, 4);
  EXPECT_EQ(advanced(), 4);
  EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", ids_[2]), 1500);
  EXPECT_EQ(runs_, 3 + 4);  // rolled back at the third unit, then run again without it
}

TEST_F(BatchCommit, AUnitWhoseRowIsLockedElsewhereIsSkippedAloneAndTheRestOfTheBatchCommits) {
  exec(*db_, "SET SESSION innodb_lock_wait_timeout = 1");
  int written = 0;
  with_workunit_locked_elsewhere(tdb_, ids_[3], [&] {
    written = commit_in_batches(*db_, ids_, 50, [&](Database& d, int64_t id) { return advance(d, id); });
  });
  EXPECT_EQ(written, 4);
  EXPECT_EQ(advanced(), 4);
  EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", ids_[3]), 1000);
}

TEST_F(BatchCommit, AnErrorOtherThanAConflictRollsBackTheBatchAndPropagates) {
  EXPECT_THROW(commit_in_batches(*db_, ids_, 50,
                                 [&](Database& d, int64_t id) {
                                   if (id == ids_[2]) throw std::runtime_error("handler bug");
                                   return advance(d, id);
                                 }),
               std::runtime_error);
  EXPECT_EQ(advanced(), 0);  // units 0 and 1 of the same batch did not commit either
}

TEST_F(BatchCommit, StopIsCheckedBetweenBatches) {
  int written = commit_in_batches(
      *db_, ids_, 2, [&](Database& d, int64_t id) { return advance(d, id); }, [] { return true; });
  EXPECT_EQ(written, 2);  // the first batch always runs
  EXPECT_EQ(advanced(), 2);
}

TEST_F(BatchCommit, ABatchReadLocksOnlyItsOwnWorkunits) {
  exec(*db_, "SET SESSION innodb_lock_wait_timeout = 1");
  // Another transaction holds workunit 2: reading 1, 3 and 5 for update does not wait
  // (each row read by its key: without FORCE INDEX, a small table was scanned and waited)...
  with_workunit_locked_elsewhere(tdb_, ids_[1], [&] {
    db_->transaction([&](Database& d) {
      auto rows = fetch_workunits(d, {ids_[4], ids_[0], ids_[2], 999999}, /*for_update=*/true);
      ASSERT_EQ(rows.size(), 3u);  // by id, the missing one left out
      EXPECT_EQ(rows[0].id, ids_[0]);
      EXPECT_EQ(rows[2].id, ids_[4]);
    });
    // ...while a read that includes it times out (outside Database::transaction, which
    // would retry it).
    EXPECT_THROW(fetch_workunits(*db_, {ids_[0], ids_[1]}, /*for_update=*/true), DbError);
  });
}

TEST_F(BatchCommit, WorkunitBatchesHandOutEachWorkunitWithItsResults) {
  for (int k = 0; k < 2; ++k) {
    ResultRow r;
    r.workunitid = ids_[1];
    r.appid = 1;
    r.name = "r" + std::to_string(k);
    insert_result(*db_, r);
  }
  LockedWorkunits locked;
  std::map<int64_t, size_t> results_seen;
  int written = commit_workunit_batches(*db_, ids_, 3, locked, [&](Database& d, int64_t id) {
    auto [wu, results] = locked.load(d, id);
    EXPECT_TRUE(wu.has_value());
    results_seen[id] = results.size();
    return advance(d, id);
  });
  EXPECT_EQ(written, 5);
  EXPECT_EQ(results_seen[ids_[1]], 2u);
  EXPECT_EQ(results_seen[ids_[0]], 0u);
  // Nothing is kept after the batches: a later single load reads afresh.
  auto again = locked.load(*db_, ids_[1]);
  EXPECT_EQ(again.workunit->transition_time, 2000);
}

TEST_F(BatchCommit, WhenTheBatchReadTimesOutEachUnitLocksItsOwnAndOnlyTheLockedOneIsSkipped) {
  exec(*db_, "SET SESSION innodb_lock_wait_timeout = 1");
  LockedWorkunits locked;
  int written = 0;
  with_workunit_locked_elsewhere(tdb_, ids_[3], [&] {
    written = commit_workunit_batches(*db_, ids_, 50, locked, [&](Database& d, int64_t id) {
      auto rows = locked.load(d, id);
      if (!rows.workunit) return false;
      return advance(d, id);
    });
  });
  EXPECT_EQ(written, 4);
  EXPECT_EQ(advanced(), 4);
  EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", ids_[3]), 1000);
}

}  // namespace
}  // namespace tharsis
