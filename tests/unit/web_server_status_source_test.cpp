// Heartbeat rows to the status page's daemon rows (lib/web/server_status_source.h).
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
  EXPECT_TRUE(rows[1].running);            // exactly at the timeout still counts
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

TEST(WebServerStatusSource, Load_UnreachableDatabaseIsReportedNotThrown) {
  DbConfig config{"127.0.0.1", 1, "", "nobody", "", "nodb"};  // nothing listens on port 1
  const ServerStatus status = load_server_status(config, 100, 120);
  EXPECT_FALSE(status.db_reachable);
  EXPECT_FALSE(status.db_error.empty());
}

}  // namespace
}  // namespace tharsis
