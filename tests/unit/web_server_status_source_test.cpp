// Heartbeat rows to the status page's daemon rows, queue rows, and whether the census
// snapshot is fresh (lib/web/server_status_source.h).
#include <gtest/gtest.h>

#include "lib/web/server_status_source.h"

namespace tharsis {
namespace {

TEST(WebServerStatusSource, Daemon_RunningOnlyWhileHeartbeatIsFresh) {
  std::vector<HeartbeatRow> beats;
  beats.push_back({"validator", Shard{}, "h1", 10, 0, 1000, 5});
  beats.push_back({"assimilator", Shard{}, "h1", 11, 0, 1000 - 121, 5});
  beats.push_back({"transitioner", Shard{}, "h2", 12, 0, 1000 - 120, 5});
  const auto rows = daemon_rows_from_heartbeats(beats, 1000, 120);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "assimilator");  // sorted by name
  EXPECT_FALSE(rows[0].running);           // 121 s > timeout
  EXPECT_EQ(rows[1].name, "transitioner");
  EXPECT_TRUE(rows[1].running);  // exactly at the timeout still counts
  EXPECT_EQ(rows[1].host, "h2");
  EXPECT_EQ(rows[1].pid, 12);
  EXPECT_EQ(rows[1].last_heartbeat, 880);
  EXPECT_TRUE(rows[2].running);
}

TEST(WebServerStatusSource, Daemon_ShardedInstancesNamedWithTheirModId) {
  std::vector<HeartbeatRow> beats;
  beats.push_back({"validator", Shard{2, 1}, "h", 1, 0, 50, 0});
  beats.push_back({"validator", Shard{2, 0}, "h", 2, 0, 50, 0});
  const auto rows = daemon_rows_from_heartbeats(beats, 60, 120);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "validator_0");
  EXPECT_EQ(rows[1].name, "validator_1");
}

TEST(WebServerStatusSource, Counts_CarryQueueAndResultNumbersOver) {
  const auto queues = queue_rows({{"transition", 4, 30}, {"file_deletion", 0, 0}});
  ASSERT_EQ(queues.size(), 2u);
  EXPECT_EQ(queues[0].name, "transition");
  EXPECT_EQ(queues[0].count, 4);
  EXPECT_EQ(queues[0].oldest_age_seconds, 30);
  const auto results = result_rows({{{5, 1}, 9}, {{2, 0}, 3}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].server_state, 2);
  EXPECT_EQ(results[0].count, 3);
  EXPECT_EQ(results[1].outcome, 1);
  EXPECT_EQ(results[1].count, 9);
}

TEST(WebServerStatusSource, Counts_CappedQueueGetsTheCensusExactCountOthersDoNot) {
  CensusSnapshot census;
  census.queue_items = {{"transition", 250000}, {"validation", 12}};
  const auto rows = queue_rows({{"transition", 10000, 30, true}, {"validation", 12, 5, false}}, census);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].capped);
  EXPECT_EQ(rows[0].count, 10000);
  EXPECT_EQ(rows[0].census_count, 250000);
  EXPECT_FALSE(rows[1].capped);
  EXPECT_EQ(rows[1].census_count, -1);  // the live count is exact: nothing to add
  // Capped without a snapshot: the lower bound alone.
  EXPECT_EQ(queue_rows({{"transition", 10000, 30, true}})[0].census_count, -1);
}

// A census snapshot taken at `taken_at` every `interval` seconds, and the census daemon's row.
CensusSnapshot snapshot_at(int64_t taken_at, int64_t interval) {
  CensusSnapshot census;
  census.taken_at = taken_at;
  census.interval_seconds = interval;
  census.duration_seconds = 0.25;
  return census;
}
std::vector<DaemonStatusRow> census_daemon(bool running, int64_t last_heartbeat) {
  return {{"validator", "h", 1, true, last_heartbeat}, {"census", "h", 2, running, last_heartbeat}};
}

TEST(WebServerStatusSource, Census_NoSnapshotMeansLiveCounts) {
  const CensusStatus status = census_status(std::nullopt, census_daemon(true, 1000), 1000);
  EXPECT_FALSE(status.present);
  EXPECT_FALSE(status.stale);
}

TEST(WebServerStatusSource, Census_FreshWhileYoungerThanThreeIntervalsAndDaemonRunning) {
  const CensusStatus status = census_status(snapshot_at(1000 - 180, 60), census_daemon(true, 995), 1000);
  EXPECT_TRUE(status.present);
  EXPECT_EQ(status.taken_at, 820);
  EXPECT_EQ(status.interval_seconds, 60);
  EXPECT_DOUBLE_EQ(status.duration_seconds, 0.25);
  EXPECT_FALSE(status.stale) << status.stale_reason;  // exactly 3 intervals old still counts
  EXPECT_TRUE(status.stale_reason.empty());
}

TEST(WebServerStatusSource, Census_StaleWhenOlderThanThreeIntervals) {
  const CensusStatus status = census_status(snapshot_at(1000 - 181, 60), census_daemon(true, 995), 1000);
  EXPECT_TRUE(status.present);
  EXPECT_TRUE(status.stale);
  EXPECT_NE(status.stale_reason.find("3 min ago"), std::string::npos) << status.stale_reason;
  // Judged against the snapshot's own interval: a stretched interval (slow count) is not stale.
  EXPECT_FALSE(census_status(snapshot_at(1000 - 181, 100), census_daemon(true, 995), 1000).stale);
}

TEST(WebServerStatusSource, Census_StaleWhenTheDaemonIsNotRunningOrNeverBeat) {
  const CensusStatus stopped = census_status(snapshot_at(990, 60), census_daemon(false, 700), 1000);
  EXPECT_TRUE(stopped.stale);
  EXPECT_NE(stopped.stale_reason.find("census daemon is not running (last heartbeat 5 min ago)"),
            std::string::npos)
      << stopped.stale_reason;
  const CensusStatus missing = census_status(snapshot_at(990, 60), {{"validator", "h", 1, true, 999}}, 1000);
  EXPECT_TRUE(missing.stale);
  EXPECT_NE(missing.stale_reason.find("no census daemon"), std::string::npos) << missing.stale_reason;
  // Both reasons at once are both given.
  const CensusStatus both = census_status(snapshot_at(100, 60), census_daemon(false, 100), 1000);
  EXPECT_NE(both.stale_reason.find("times its interval"), std::string::npos);
  EXPECT_NE(both.stale_reason.find("not running"), std::string::npos);
}

TEST(WebServerStatusSource, Replica_FreshWhileReplicatingWithinTheLagLimit) {
  ReplicationState state{true, true, kReplicaStaleLagSeconds, ""};
  ReplicaStatus replica = replica_status(state, 990, 1000, 120);
  EXPECT_TRUE(replica.used && replica.replication_known && replica.replicating);
  EXPECT_EQ(replica.lag_seconds, kReplicaStaleLagSeconds);
  EXPECT_FALSE(replica.stale) << replica.note;  // exactly at the limit still counts
  EXPECT_EQ(replica.newest_heartbeat_age, 10);
  state.seconds_behind = kReplicaStaleLagSeconds + 1;
  replica = replica_status(state, 990, 1000, 120);
  EXPECT_TRUE(replica.stale);
  EXPECT_NE(replica.note.find("behind the primary"), std::string::npos) << replica.note;
}

TEST(WebServerStatusSource, Replica_StaleWhenReplicationStoppedWithItsError) {
  ReplicationState stopped{true, false, std::nullopt, "Duplicate entry '7' for key 'PRIMARY'"};
  ReplicaStatus replica = replica_status(stopped, 999, 1000, 120);
  EXPECT_TRUE(replica.stale);
  EXPECT_FALSE(replica.replicating);
  EXPECT_EQ(replica.lag_seconds, -1);
  EXPECT_NE(replica.note.find("replication stopped: Duplicate entry"), std::string::npos) << replica.note;
}

TEST(WebServerStatusSource, Replica_WithoutItsStateJudgedByTheNewestHeartbeat) {
  ReplicaStatus fresh = replica_status(std::nullopt, 1000 - 120, 1000, 120);
  EXPECT_FALSE(fresh.stale) << fresh.note;
  EXPECT_FALSE(fresh.replication_known);
  ReplicaStatus old = replica_status(std::nullopt, 1000 - 121, 1000, 120);
  EXPECT_TRUE(old.stale);
  EXPECT_NE(old.note.find("every daemon has stopped"), std::string::npos) << old.note;
  EXPECT_TRUE(replica_status(std::nullopt, 0, 1000, 120).stale) << "no heartbeat at all";
}

TEST(WebServerStatusSource, Load_UnreachableDatabaseIsReportedNotThrown) {
  DbConfig config{"127.0.0.1", 1, "", "nobody", "", "nodb"};  // nothing listens on port 1
  const ServerStatus status = load_server_status(config, 100, 120);
  EXPECT_FALSE(status.db_reachable);
  EXPECT_FALSE(status.db_error.empty());
}

}  // namespace
}  // namespace tharsis
