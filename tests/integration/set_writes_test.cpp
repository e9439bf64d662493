// Set-based daemon writes against a real MariaDB (db/planned_writes.h,
// commit_workunit_sets): a set of guarded updates writes exactly the rows still in the
// state they were planned on and says how many matched; a batch costs a fixed number of
// statements whatever its size; a batch whose set write finds a changed row (or whose read
// times out on a lock) is rolled back and written unit by unit, only the stale unit
// skipped, its credit with it; and the transitioner's set-based pass
// makes the same rows as its rules say.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "daemons/transitioner/lib/transitioner_pass.h"
#include "db/app_store.h"
#include "db/assimilation_store.h"
#include "db/locked_workunits.h"
#include "db/planned_writes.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "db/workunit_store.h"
#include "lib/daemon/batch_commit.h"
#include "lib/work/create_work.h"
#include "tests/support/test_database.h"
#include "tests/support/test_project.h"
#include "tests/support/workunit_batch.h"

namespace tharsis {
namespace {

using testing::TestDatabase;

int64_t session_status(Database& db, const std::string& name) {
  return query_int(db, "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = ?",
                   name);
}

class SetWrites : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = tdb_.open();
    wus_ = testing::insert_planned_workunits(*db_, 5, 1000);
    for (const auto& wu : wus_) {
      ResultRow r;
      r.workunitid = wu.id;
      r.appid = 1;
      r.name = wu.name + "_0";
      r.id = insert_result(*db_, r);
      results_.push_back(r);
    }
  }
  // Plan: workunit to transition_time 2000, its result OVER/DIDNT_NEED, one new result.
  bool plan(Database& d, LockedWorkunits& locked, int64_t id, PlannedWrites& w) {
    auto [wu, results] = locked.load(d, id);
    if (!wu || wu->transition_time != 1000) return false;
    for (const auto& r : results) {
      ResultRow after = r;
      after.server_state = ServerState::Over;
      after.outcome = Outcome::DidntNeed;
      w.result_updates.push_back(ResultUpdate{r, after});
    }
    ResultRow fresh;
    fresh.workunitid = id;
    fresh.appid = 1;
    fresh.name = wu->name + "_1";
    w.new_results.push_back(fresh);
    WorkunitRow after = *wu;
    after.transition_time = 2000;
    WorkunitRow before = *wu;
    if (id == stale_id_) before.error_mask = 7;  // planned on a state the row is not in
    w.workunit_updates.push_back(WorkunitUpdate{before, after});
    return true;
  }
  std::vector<int64_t> ids() const {
    std::vector<int64_t> out;
    for (const auto& wu : wus_) out.push_back(wu.id);
    return out;
  }
  int64_t done() { return query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE transition_time = 2000"); }
  int64_t count(const std::string& sql) { return query_int(*db_, sql); }

  TestDatabase tdb_;
  std::unique_ptr<Database> db_;
  std::vector<WorkunitRow> wus_;
  std::vector<ResultRow> results_;
  int64_t stale_id_ = 0;
};

TEST_F(SetWrites, GuardedSetUpdatesWriteOnlyRowsStillInThePlannedStateAndCountMatchedRows) {
  std::vector<ResultUpdate> results;
  for (const auto& r : results_) {
    ResultRow after = r;
    after.validate_state = ValidateState::Valid;
    after.granted_credit = 1.0 / 3;
    results.push_back(ResultUpdate{r, after});
  }
  results[1].before.outcome = Outcome::Success;  // not what the row holds
  results[2].after = results[2].before;          // unchanged: still a matched row
  EXPECT_EQ(update_results_guarded(*db_, results), 4);
  EXPECT_EQ(fetch_result(*db_, results_[1].id)->validate_state, ValidateState::Init);
  EXPECT_EQ(fetch_result(*db_, results_[0].id)->validate_state, ValidateState::Valid);
  EXPECT_EQ(fetch_result(*db_, results_[0].id)->granted_credit, 1.0 / 3);  // exactly, through JSON

  std::vector<WorkunitUpdate> wus;
  for (const auto& wu : wus_) {
    WorkunitRow after = wu;
    after.transition_time = 2000;
    after.need_validate = true;
    after.canonical_credit = 0.1;
    wus.push_back(WorkunitUpdate{wu, after});
  }
  wus[3].before.assimilate_state = AssimilateState::Ready;
  wus[4].after.canonical_credit = std::numeric_limits<double>::infinity();  // not JSON: left unmatched
  EXPECT_EQ(update_workunits_guarded(*db_, wus), 3);
  EXPECT_EQ(done(), 3);
  EXPECT_TRUE(fetch_workunit(*db_, wus_[0].id)->need_validate);
  EXPECT_EQ(fetch_workunit(*db_, wus_[0].id)->canonical_credit, 0.1);
  EXPECT_EQ(fetch_workunit(*db_, wus_[3].id)->transition_time, 1000);
  EXPECT_EQ(update_workunits_guarded(*db_, {}), 0);
}

TEST_F(SetWrites, MultiRowInsertsWriteEveryRowAcrossStatements) {
  std::vector<ResultRow> rows;
  for (int i = 0; i < 300; ++i) {  // 256 + 32 + 8 + 4 rows per statement
    ResultRow r;
    r.workunitid = wus_[0].id;
    r.appid = 1;
    r.name = "bulk_" + std::to_string(i);
    r.xml_doc_in = "<file_info>" + std::to_string(i) + "</file_info>";
    r.random = i;
    r.priority = -i;
    rows.push_back(r);
  }
  int64_t before = session_status(*db_, "Questions");
  insert_result_rows(*db_, rows);
  EXPECT_LE(session_status(*db_, "Questions") - before, 4 + 1);  // + the status query
  EXPECT_EQ(count("SELECT COUNT(*) FROM result WHERE name LIKE 'bulk\\_%'"), 300);
  auto r = fetch_result_by_name(*db_, "bulk_299");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->xml_doc_in, "<file_info>299</file_info>");
  EXPECT_EQ(r->random, 299);
  EXPECT_EQ(r->priority, -299);
}

TEST_F(SetWrites, ABatchIsWrittenInAFixedNumberOfStatementsAndARerunWritesNothing) {
  LockedWorkunits locked;
  auto plan = [&](Database& d, int64_t id, PlannedWrites& w) { return this->plan(d, locked, id, w); };
  int64_t before = session_status(*db_, "Questions");
  EXPECT_EQ(commit_workunit_sets(*db_, ids(), 50, locked, plan), 5);
  // START, two locking reads, results, new results (4 + 1 rows), workunits, COMMIT, and
  // this status query.
  EXPECT_LE(session_status(*db_, "Questions") - before, 9);
  EXPECT_EQ(done(), 5);
  EXPECT_EQ(count("SELECT COUNT(*) FROM result WHERE outcome = 5"), 5);  // DIDNT_NEED
  EXPECT_EQ(count("SELECT COUNT(*) FROM result"), 10);
  EXPECT_EQ(commit_workunit_sets(*db_, ids(), 50, locked, plan), 0);
  EXPECT_EQ(count("SELECT COUNT(*) FROM result"), 10);
}

TEST_F(SetWrites, ABatchWithARowChangedUnderItIsWrittenUnitByUnitAndOnlyTheStaleUnitIsSkipped) {
  stale_id_ = wus_[2].id;
  LockedWorkunits locked;
  int written = commit_workunit_sets(*db_, ids(), 50, locked, [&](Database& d, int64_t id, PlannedWrites& w) {
    return plan(d, locked, id, w);
  });
  EXPECT_EQ(written, 4);
  EXPECT_EQ(done(), 4);
  // The stale unit wrote nothing: neither its result update nor its new result.
  EXPECT_EQ(fetch_workunit(*db_, stale_id_)->transition_time, 1000);
  EXPECT_EQ(fetch_result(*db_, results_[2].id)->server_state, ServerState::Unsent);
  EXPECT_FALSE(fetch_result_by_name(*db_, wus_[2].name + "_1").has_value());
  EXPECT_EQ(count("SELECT COUNT(*) FROM result"), 9);
}

TEST_F(SetWrites, ABatchWhoseReadTimesOutIsWrittenUnitByUnitAndOnlyTheLockedUnitIsSkipped) {
  exec(*db_, "SET SESSION innodb_lock_wait_timeout = 1");
  LockedWorkunits locked;
  int written = 0;
  testing::with_workunit_locked_elsewhere(tdb_, wus_[3].id, [&] {
    written = commit_workunit_sets(*db_, ids(), 50, locked, [&](Database& d, int64_t id, PlannedWrites& w) {
      return plan(d, locked, id, w);
    });
  });
  EXPECT_EQ(written, 4);
  EXPECT_EQ(done(), 4);
  EXPECT_EQ(fetch_workunit(*db_, wus_[3].id)->transition_time, 1000);
}

TEST_F(SetWrites, AssimilationRecordsAreCountedAsInserted) {
  ASSERT_TRUE(record_assimilation(*db_, wus_[1].id, 5, 0, 0));
  std::vector<AssimilationRecord> records;
  for (const auto& wu : wus_) records.push_back(AssimilationRecord{wu.id, 9, 0, 0});
  EXPECT_EQ(record_assimilations(*db_, records), 4);  // the one already recorded is left as it was
  EXPECT_EQ(count("SELECT COUNT(*) FROM assimilation"), 5);
  EXPECT_EQ(query_int(*db_, "SELECT time FROM assimilation WHERE workunitid = ?", wus_[1].id), 5);
}

TEST_F(SetWrites, AUnitWhoseAssimilationIsAlreadyRecordedIsSkippedAloneWithItsCredit) {
  ASSERT_TRUE(record_assimilation(*db_, wus_[2].id, 5, 0, 0));  // assimilated meanwhile
  exec(*db_, "INSERT INTO host (id, userid) VALUES (3, 0)");
  LockedWorkunits locked;
  int written = commit_workunit_sets(*db_, ids(), 50, locked, [&](Database& d, int64_t id, PlannedWrites& w) {
    if (!plan(d, locked, id, w)) return false;
    w.assimilations.push_back(AssimilationRecord{id, 9, 0, 0});
    w.credits.push_back(CreditChange{3, 0, 1.0});
    return true;
  });
  EXPECT_EQ(written, 4);
  EXPECT_EQ(done(), 4);
  EXPECT_EQ(fetch_workunit(*db_, wus_[2].id)->transition_time, 1000);
  EXPECT_EQ(count("SELECT COUNT(*) FROM assimilation"), 5);
  EXPECT_EQ(query_int(*db_, "SELECT ROUND(SUM(credit)) FROM credit_pending WHERE host_id = 3"),
            4);  // not 5: its unit rolled back (the credit is pending: db/credit_store.h)
}

TEST(SetWritesTransitioner, ABatchOfWorkunitsGetsItsResultsInAFewStatementsAndARerunIsANoOp) {
  constexpr int64_t kNow = 1'800'000'000;
  testing::TestProject project;
  auto db = project.open();
  std::vector<int64_t> ids;
  for (int i = 0; i < 40; ++i) {
    JobSpec job;
    job.name = "set_" + std::to_string(i);
    job.appid = project.appid();
    job.output_template_file = project.output_template();
    job.min_quorum = 2;
    job.target_nresults = 2;
    auto id = create_workunit(*db, project.config(), job, kNow);
    ASSERT_TRUE(id.ok()) << id.error();
    ids.push_back(*id);
  }
  TransitionerPass pass(project.config());
  int64_t before = session_status(*db, "Questions");
  EXPECT_EQ(pass.transition_batch(*db, ids, kNow, 50), 40);
  EXPECT_LE(session_status(*db, "Questions") - before, 10);  // not one per workunit
  EXPECT_EQ(
      query_int(*db, "SELECT COUNT(*) FROM result WHERE server_state = ? AND xml_doc_in LIKE '%<file_info>%'",
                ServerState::Unsent),
      80);
  EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM workunit WHERE transition_time = ?", kTransitionNever), 40);
  auto results = fetch_results_of_workunit(*db, ids[7]);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].name, "set_7_0");
  EXPECT_EQ(results[1].name, "set_7_1");
  // Due again (as after a lost COMMIT acknowledgement): the plan sees both results and adds none.
  exec(*db, "UPDATE workunit SET transition_time = ?", kNow);
  EXPECT_EQ(pass.transition_batch(*db, ids, kNow, 50), 40);
  EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM result"), 80);

  // The pass reads neither of the results' file lists (ResultText::None) and writes none:
  // the output list of two reported results survives the change to need_validate, and the
  // locked rows it plans on carry the states without the texts.
  const std::string output = "<file_info><name>out</name></file_info>";
  exec(*db,
       "UPDATE result SET server_state = ?, outcome = ?, client_state = 5, received_time = ?, "
       "xml_doc_out = ? WHERE workunitid = ?",
       ServerState::Over, Outcome::Success, kNow, output, ids[7]);
  exec(*db, "UPDATE workunit SET transition_time = ? WHERE id = ?", kNow, ids[7]);
  LockedWorkunits lean(ResultText::None);
  lean.lock(*db, {ids[7]});
  auto locked = lean.load(*db, ids[7]);
  ASSERT_EQ(locked.results.size(), 2u);
  EXPECT_EQ(locked.results[0].server_state, ServerState::Over);
  EXPECT_EQ(locked.results[0].xml_doc_out, "");
  // The validator's, assimilator's and file deleter's reads keep the file lists.
  LockedWorkunits files(ResultText::FileLists);
  files.lock(*db, {ids[7]});
  auto with_files = files.load(*db, ids[7]);
  ASSERT_EQ(with_files.results.size(), 2u);
  EXPECT_EQ(with_files.results[1].xml_doc_out, output);
  EXPECT_NE(with_files.results[1].xml_doc_in.find("<file_info>"), std::string::npos);
  EXPECT_EQ(pass.transition_batch(*db, {ids[7]}, kNow, 50), 1);
  EXPECT_TRUE(fetch_workunit(*db, ids[7])->need_validate);
  for (const auto& r : fetch_results_of_workunit(*db, ids[7])) {
    EXPECT_EQ(r.xml_doc_out, output);
    EXPECT_NE(r.xml_doc_in.find("<file_info>"), std::string::npos);
  }
}

}  // namespace
}  // namespace tharsis
