// The census snapshot over a real MariaDB (daemons/census/, db/census_store.h): after a
// pass it holds exactly the live counts, it is replaced whole, the next is due only after
// its interval, the page source reads it instead of counting, and falls back to counting
// live when there is none. Also the capped queue counts the pages make (db/queue_stats.h).
// Passes run in-process with an injected clock; daemon_processes_test runs the program.
#include <gtest/gtest.h>

#include "daemons/census/lib/census_pass.h"
#include "db/census_store.h"
#include "db/heartbeat_store.h"
#include "db/queue_stats.h"
#include "db/sql.h"
#include "lib/web/server_status_source.h"
#include "tests/support/test_project.h"

namespace tharsis::census_test {
namespace {

constexpr int64_t kNow = 1'800'000'000;

class Census : public ::testing::Test {
 protected:
  void SetUp() override { db_ = project_.open(); }

  int64_t add_workunit(int64_t create_time, const std::string& set = "") {
    exec(*db_,
         "INSERT INTO workunit (create_time, appid, name, xml_doc, transition_time) VALUES (?,?,?,'',?)",
         create_time, project_.appid(), "wu" + std::to_string(++names_), kNow + 86400);
    const int64_t id = last_insert_id(*db_);
    // `set` is fixed text from the tests below, never input.
    if (!set.empty()) exec(*db_, "UPDATE workunit SET " + set + " WHERE id = ?", id);
    return id;
  }

  void add_results(int64_t wu, int server_state, int outcome, int n) {
    for (int i = 0; i < n; ++i) {
      exec(*db_,
           "INSERT INTO result (create_time, workunitid, appid, name, server_state, outcome, xml_doc_in, "
           "xml_doc_out) VALUES (?,?,?,?,?,?,'','')",
           kNow - 100, wu, project_.appid(), "r" + std::to_string(++names_), server_state, outcome);
    }
  }

  // A project in mid-flight: results in five (server_state, outcome) pairs and something
  // in every queue.
  void populate() {
    const int64_t wu = add_workunit(kNow - 500);
    add_results(wu, 2, 0, 4);
    add_results(wu, 4, 0, 3);
    add_results(wu, 5, 1, 6);
    add_results(wu, 5, 3, 2);
    add_results(wu, 5, 4, 1);
    add_workunit(kNow - 400, "transition_time = " + std::to_string(kNow - 30));
    add_workunit(kNow - 300, "need_validate = 1");
    add_workunit(kNow - 200, "assimilate_state = 1");
    add_workunit(kNow - 100, "file_delete_state = 1");
    exec(*db_, "UPDATE result SET file_delete_state = 1 WHERE outcome = 3");
  }

  // The snapshot holds exactly what counting now finds.
  void expect_snapshot_is_live(const CensusSnapshot& snapshot, int64_t now) {
    EXPECT_EQ(snapshot.results, results_by_state(*db_));
    std::map<std::string, int64_t> queues;
    for (const auto& queue : queue_backlogs(*db_, now, /*cap=*/0)) queues[queue.name] = queue.count;
    EXPECT_EQ(snapshot.queue_items, queues);
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  DaemonOptions options_;
  int names_ = 0;
};

TEST_F(Census, Snapshot_NoneUntilTheFirstPass) { EXPECT_FALSE(fetch_census(*db_).has_value()); }

TEST_F(Census, Snapshot_EqualsTheLiveCountsAfterAPass) {
  populate();
  CensusPass census(60);
  DaemonContext context{project_.config(), options_, Shard{}, 100};
  EXPECT_EQ(census.do_pass(*db_, context, kNow), 1);
  const auto stored = fetch_census(*db_);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->taken_at, kNow);
  EXPECT_EQ(stored->interval_seconds, 60);
  EXPECT_GE(stored->duration_seconds, 0);
  expect_snapshot_is_live(*stored, kNow);
  EXPECT_EQ(stored->results.at({5, 1}), 6);
  EXPECT_EQ(stored->queue_items.at("file_deletion"), 3);  // one workunit and two results
  EXPECT_EQ(stored->queue_items.at("transition"), 1);
}

TEST_F(Census, Snapshot_NextOnlyAfterItsIntervalAndReplacedWhole) {
  populate();
  CensusPass census(60);
  DaemonContext context{project_.config(), options_, Shard{}, 100};
  ASSERT_EQ(census.do_pass(*db_, context, kNow), 1);
  // The project moves on: the NO_REPLY pair disappears, a new pair appears.
  exec(*db_, "UPDATE result SET outcome = 6 WHERE outcome = 4");
  add_results(add_workunit(kNow), 5, 5, 2);
  EXPECT_EQ(census.do_pass(*db_, context, kNow + 59), 0);  // not due: the old snapshot stays
  EXPECT_EQ(fetch_census(*db_)->taken_at, kNow);
  EXPECT_EQ(fetch_census(*db_)->results.count({5, 4}), 1u);
  EXPECT_EQ(census.do_pass(*db_, context, kNow + 60), 1);
  const auto stored = fetch_census(*db_);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->taken_at, kNow + 60);
  EXPECT_EQ(stored->results.count({5, 4}), 0u);  // gone, not left over from the last snapshot
  EXPECT_EQ(stored->results.at({5, 5}), 2);
  expect_snapshot_is_live(*stored, kNow + 60);
}

TEST_F(Census, QueueCounts_StopAtTheCapAndSayItWhileTheCensusCountsAll) {
  for (int i = 0; i < 5; ++i) add_workunit(kNow - 1000 + i, "need_validate = 1");
  add_workunit(kNow - 5000);  // not queued: older, but not in the queue
  auto validation = [&](int64_t cap) { return queue_backlogs(*db_, kNow, cap)[1]; };
  EXPECT_EQ(validation(3).name, "validation");
  EXPECT_EQ(validation(3).count, 3);
  EXPECT_TRUE(validation(3).capped);
  EXPECT_EQ(validation(5).count, 5);
  EXPECT_TRUE(validation(5).capped);  // at the cap: there may be more
  EXPECT_EQ(validation(6).count, 5);
  EXPECT_FALSE(validation(6).capped);
  EXPECT_EQ(validation(0).count, 5);
  EXPECT_FALSE(validation(0).capped);
  // The age is the first-created queued workunit's, whatever the cap.
  EXPECT_EQ(validation(3).oldest_age, 1000);
  EXPECT_EQ(validation(0).oldest_age, 1000);
  // Transition: due workunits only, the age from the earliest transition_time.
  for (int i = 0; i < 4; ++i) add_workunit(kNow, "transition_time = " + std::to_string(kNow - 10 * i));
  const QueueBacklog transition = queue_backlogs(*db_, kNow, 2)[0];
  EXPECT_EQ(transition.count, 2);
  EXPECT_TRUE(transition.capped);
  EXPECT_EQ(transition.oldest_age, 30);
  EXPECT_EQ(queue_backlogs(*db_, kNow, 0)[0].count, 4);
}

TEST_F(Census, PageSource_ShowsTheSnapshotAndCountsLiveOnlyWithoutOne) {
  populate();
  const DbConfig& config = project_.config().db;
  // No snapshot yet: counted live, and so right now.
  ServerStatus live = load_server_status(config, kNow, 120);
  ASSERT_TRUE(live.db_reachable) << live.db_error;
  EXPECT_FALSE(live.census.present);
  int64_t total = 0;
  for (const auto& row : live.results) total += row.count;
  EXPECT_EQ(total, 16);

  CensusPass census(60);
  DaemonContext context{project_.config(), options_, Shard{}, 100};
  ASSERT_EQ(census.do_pass(*db_, context, kNow), 1);
  record_heartbeat(*db_, HeartbeatRow{"census", Shard{}, "h", 1, kNow, kNow, 1});
  add_results(add_workunit(kNow), 2, 0, 5);  // after the snapshot: not on the page yet
  ServerStatus status = load_server_status(config, kNow + 30, 120);
  ASSERT_TRUE(status.db_reachable) << status.db_error;
  EXPECT_TRUE(status.census.present);
  EXPECT_EQ(status.census.taken_at, kNow);
  EXPECT_FALSE(status.census.stale) << status.census.stale_reason;
  total = 0;
  for (const auto& row : status.results) total += row.count;
  EXPECT_EQ(total, 16);
  // Queues are still counted live for each view.
  EXPECT_EQ(status.queues[0].name, "transition");
  EXPECT_EQ(status.queues[0].count, 1);

  // Four intervals later, with the census daemon silent since: stale, with both reasons.
  ServerStatus later = load_server_status(config, kNow + 240, 120);
  EXPECT_TRUE(later.census.stale);
  EXPECT_NE(later.census.stale_reason.find("times its interval"), std::string::npos);
  EXPECT_NE(later.census.stale_reason.find("not running"), std::string::npos);
}

}  // namespace
}  // namespace tharsis::census_test
