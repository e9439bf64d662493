// Issue 17: the status pages read from a plain asynchronous replica (<replica_db_*>), and
// say when it is stale. A primary and its replica of this test's own
// (scripts/private_mariadb.sh start-primary / start-replica); the real server_status CGI
// program, run as Apache runs it, reads the replica with the pages' read-only account.
// While the replica applies the primary's writes the page says how far behind it is; once
// replication stops (STOP SLAVE on the replica) the page says it is stale, and why, in
// HTML, JSON and Prometheus text.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

#include "db/heartbeat_store.h"
#include "db/schema_loader.h"
#include "db/sql.h"
#include "lib/text_file.h"
#include "tests/support/child_process.h"
#include "tests/support/test_database.h"
#include "tests/support/test_project.h"

namespace tharsis {
namespace {

using testing::TempDir;
using testing::TestProject;

class StatusReplica : public ::testing::Test {
 protected:
  StatusReplica() {
    primary_ = dir_.path() + "/primary";
    replica_ = dir_.path() + "/replica";
    started_ = testing::run_private_mariadb("start-primary " + primary_) == 0 &&
               testing::run_private_mariadb("start-replica " + replica_ + " " + primary_) == 0;
  }
  ~StatusReplica() override {
    project_.reset();  // drops its database while the primary runs
    testing::run_private_mariadb("stop " + replica_);
    testing::run_private_mariadb("stop " + primary_);
  }
  static DbConfig root_on(const std::string& dir) {
    DbConfig config;
    config.socket = dir + "/mysqld.sock";
    config.user = "root";
    return config;
  }
  // The status page program as a CGI: its output (headers, blank line, body).
  std::string run_page(const std::string& query) {
    const std::string command = "THARSIS_CONFIG=" + project_->config().project_dir +
                                "/config.xml REQUEST_METHOD=GET QUERY_STRING='" + query + "' " +
                                testing::built_programs_dir() + "/server_status 2>/dev/null";
    std::string out;
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char buffer[4096];
      size_t n;
      while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
      pclose(pipe);
    }
    return out;
  }
  // Waits until the replica holds what the primary committed (its GTID position).
  void wait_for_replica() {
    auto primary = Database::open(root_on(primary_));
    auto replica = Database::open(root_on(replica_));
    auto gtid = query(*primary, "SELECT @@gtid_binlog_pos");
    ASSERT_TRUE(gtid->next());
    const std::string position = gtid->getString(1);
    auto waited = query(*replica, "SELECT MASTER_GTID_WAIT(?, 30)", position);
    ASSERT_TRUE(waited->next());
    ASSERT_EQ(waited->getInt(1), 0) << "the replica did not reach " << position;
  }

  TempDir dir_{"tharsis-replica"};
  std::string primary_, replica_;
  bool started_ = false;
  std::unique_ptr<TestProject> project_;
};

TEST_F(StatusReplica, PagesReadTheReplicaAndSayWhenItIsStale) {
  ASSERT_TRUE(started_) << "could not start a primary and its replica in " << dir_.path();
  project_ = std::make_unique<TestProject>("http://127.0.0.1:8080/", root_on(primary_));
  ProjectConfig config = project_->config();
  create_read_only_user(root_on(primary_), config.db.name, "replica_pages", "pagespassword1");
  config.other["web_db_user"] = "replica_pages";
  config.other["web_db_passwd"] = "pagespassword1";
  config.replica.socket = replica_ + "/mysqld.sock";
  ASSERT_TRUE(write_text_file(config.project_dir + "/config.xml", render_project_config(config), 0644).ok());

  const int64_t now = std::time(nullptr);
  auto primary = project_->open();
  record_heartbeat(*primary, HeartbeatRow{"transitioner", Shard{}, "h1", 42, now - 10, now, 0});
  wait_for_replica();

  const std::string fresh = run_page("format=json");
  const auto replica_at = fresh.find("\"replica\"");
  ASSERT_NE(replica_at, std::string::npos) << fresh;
  const std::string replica = fresh.substr(replica_at, fresh.find('}', replica_at) - replica_at);
  EXPECT_NE(replica.find("\"used\":true"), std::string::npos) << replica;
  EXPECT_NE(replica.find("\"replicating\":true"), std::string::npos) << replica;
  EXPECT_NE(replica.find("\"stale\":false"), std::string::npos) << replica;
  EXPECT_NE(fresh.find("\"transitioner\""), std::string::npos) << "the replicated heartbeat is shown";
  EXPECT_NE(run_page("").find("Read from a read replica"), std::string::npos);

  // Replication stops; the primary moves on without the replica.
  exec(*Database::open(root_on(replica_)), "STOP SLAVE");
  record_heartbeat(*primary, HeartbeatRow{"validator", Shard{}, "h1", 43, now, now + 1, 0});
  const std::string stale = run_page("format=json");
  const std::string stale_replica = stale.substr(stale.find("\"replica\""));
  EXPECT_NE(stale_replica.find("\"stale\":true"), std::string::npos) << stale_replica;
  EXPECT_NE(stale_replica.find("replication stopped"), std::string::npos) << stale_replica;
  EXPECT_EQ(stale.find("\"validator\""), std::string::npos) << "the replica does not have it";
  const std::string html = run_page("");
  EXPECT_NE(html.find("Stale: read from a read replica; replication stopped"), std::string::npos) << html;
  EXPECT_NE(run_page("format=prometheus").find("tharsis_replica_stale 1"), std::string::npos);
}

}  // namespace
}  // namespace tharsis
