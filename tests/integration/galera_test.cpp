// The database layer on a real 3-node MariaDB Galera cluster (scripts/private_galera.sh):
// a connection fails over when its node is killed or leaves the primary component (1047),
// and returns to its node once that node has rejoined; two connections on two nodes
// writing the same row: Galera's certification conflict (reported as a deadlock, 1213)
// is retried and the re-run transaction computes on the winner's value. Skipped with a
// message on a machine without galera-4.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "db/database.h"
#include "db/mariadb_errors.h"
#include "db/schema_loader.h"
#include "tests/support/galera_cluster.h"

namespace tharsis {
namespace {

using testing::GaleraCluster;

const char* const kDbName = "galera_t";

class Galera : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_reason_ = GaleraCluster::missing_prerequisite();
    if (!skip_reason_.empty()) return;
    cluster_ = new GaleraCluster(3);
    auto db = Database::open(cluster_->admin_only(1));
    db->exec(std::string("CREATE DATABASE ") + kDbName);
    db->exec(std::string("CREATE TABLE ") + kDbName +
             ".counter (id INT PRIMARY KEY, v BIGINT NOT NULL, runs BIGINT NOT NULL DEFAULT 0)");
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << "Galera tests skipped: " << skip_reason_;
    ASSERT_NE(cluster_, nullptr);
    cluster_->heal();
  }
  void TearDown() override {
    if (cluster_) cluster_->heal();  // a failed test must not leave a node down
  }

  // Node `node`'s connection to the test database, with the others as fall-backs.
  static std::unique_ptr<Database> on_node(int node, double home_retry_seconds = 30) {
    DbConfig config = cluster_->admin(node);
    config.name = kDbName;
    config.home_retry_seconds = home_retry_seconds;
    return Database::open(config);
  }
  static std::unique_ptr<Database> only_node(int node) {
    DbConfig config = cluster_->admin_only(node);
    config.name = kDbName;
    return Database::open(config);
  }
  static void reset_counter(int id) {
    auto db = only_node(1);
    db->exec("REPLACE INTO counter (id, v, runs) VALUES (?, 0, 0)", id);
  }
  static int64_t value_on(int node, int id) {
    return only_node(node)->query_int("SELECT v FROM counter WHERE id = ?", id);
  }

  static std::string skip_reason_;
  static GaleraCluster* cluster_;
};

std::string Galera::skip_reason_;
GaleraCluster* Galera::cluster_ = nullptr;

// Read, then a guarded write of read + 1: the pattern of every Tharsis state change.
// Returns whether the guarded UPDATE matched (it must, inside a successful transaction).
bool increment(Database& d, int id) {
  int64_t v = d.query_int("SELECT v FROM counter WHERE id = ?", id);
  return d.exec("UPDATE counter SET v = ?, runs = runs + 1 WHERE id = ? AND v = ?", v + 1, id, v) == 1;
}

TEST_F(Galera, ConnectionFailsOverWhenItsNodeIsKilled) {
  reset_counter(1);
  auto db = on_node(2);
  ASSERT_TRUE(db->transaction([](Database& d) { return increment(d, 1); }));
  EXPECT_EQ(db->current_node(), 0);

  cluster_->kill(2);
  // The next transaction finds its connection gone, sets node 2 aside and re-runs on
  // node 3 (the next in the ring), from the start.
  ASSERT_TRUE(db->transaction([](Database& d) { return increment(d, 1); }));
  EXPECT_EQ(db->current_node(), 1) << "node 3 is fall-back 1 of node 2";
  EXPECT_EQ(db->failovers(), 1);
  EXPECT_GE(db->retries(), 1);
  EXPECT_EQ(value_on(1, 1), 2);
  EXPECT_EQ(value_on(3, 1), 2);

  // A new connection configured for the dead node starts on a fall-back.
  auto fresh = on_node(2);
  EXPECT_EQ(fresh->current_node(), 1);
  EXPECT_EQ(fresh->query_int("SELECT v FROM counter WHERE id = 1"), 2);
}

TEST_F(Galera, RestartedNodeRejoinsAndServesItsInstancesAgain) {
  reset_counter(2);
  auto db = on_node(3, /*home_retry_seconds=*/0.5);
  cluster_->kill(3);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(db->transaction([](Database& d) { return increment(d, 2); }));
  EXPECT_NE(db->current_node(), 0);

  cluster_->restart(3);  // IST of the five writes it missed
  EXPECT_EQ(value_on(3, 2), 5) << "the rejoined node serves the writes made while it was down";
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ASSERT_TRUE(db->transaction([](Database& d) { return increment(d, 2); }));
  EXPECT_EQ(db->current_node(), 0) << "back on its own node after home_retry_seconds";
  EXPECT_EQ(value_on(1, 2), 6);
}

TEST_F(Galera, NodeOutOfThePrimaryComponentIsPassedOver) {
  reset_counter(3);
  auto db = on_node(1);
  ASSERT_TRUE(db->transaction([](Database& d) { return increment(d, 3); }));
  // Cut node 1 off the group: it stays up but answers 1047 (not ready) to statements.
  auto admin = Database::open(cluster_->admin_only(1));
  admin->exec("SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'");
  bool cut_off = false;
  for (int i = 0; i < 100 && !cut_off; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto rows = admin->query("SHOW GLOBAL STATUS LIKE 'wsrep_ready'");
    cut_off = rows->next() && std::string(rows->getString(2)) == "OFF";
  }
  ASSERT_TRUE(cut_off) << "node 1 did not leave the primary component";
  try {
    only_node(1)->query_int("SELECT COUNT(*) FROM counter");
    ADD_FAILURE() << "a statement on a non-primary node should fail";
  } catch (const DbError& e) {
    EXPECT_EQ(e.code(), mariadb_error::kUnknownCom) << e.what();
    EXPECT_TRUE(e.connection_lost());
  } catch (...) {
    // Opening may itself fail; the point is what `db` does below.
  }
  ASSERT_TRUE(db->transaction([](Database& d) { return increment(d, 3); }));
  EXPECT_EQ(db->current_node(), 1) << "node 2 is fall-back 1 of node 1";
  EXPECT_EQ(value_on(2, 3), 2);

  admin->exec("SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
  EXPECT_TRUE(cluster_->wait_healthy(60)) << "node 1 did not rejoin after gmcast.isolate=0";
}

TEST_F(Galera, CertificationConflictOnTwoNodesIsRetriedFromTheStart) {
  reset_counter(4);
  auto a = on_node(1);
  auto b = on_node(2);
  int runs_of_a = 0;
  // A reads and writes the row on node 1; before A commits, B writes the same row on node
  // 2 and commits (row locks are node-local: B is not blocked by A's). A's COMMIT then
  // fails certification (or A is aborted by B's replicated write): error 1213, and the
  // transaction is re-run, reading B's value.
  bool written = a->transaction([&](Database& d) {
    ++runs_of_a;
    bool ok = increment(d, 4);
    if (runs_of_a == 1) {
      EXPECT_TRUE(b->transaction([](Database& d2) { return increment(d2, 4); }));
    }
    return ok;
  });
  EXPECT_TRUE(written);
  EXPECT_EQ(runs_of_a, 2) << "A's first run must have lost the conflict and been re-run";
  EXPECT_EQ(a->retries(), 1);
  for (int node = 1; node <= 3; ++node) {
    EXPECT_EQ(value_on(node, 4), 2) << "node " << node << ": both increments, neither lost";
  }
  EXPECT_EQ(only_node(3)->query_int("SELECT runs FROM counter WHERE id = 4"), 2);
}

TEST_F(Galera, ConcurrentIncrementsOnTwoNodesLoseNothing) {
  reset_counter(5);
  constexpr int kEach = 40;
  std::atomic<int> failures{0};
  auto worker = [&](int node) {
    try {
      auto db = on_node(node);
      for (int i = 0; i < kEach; ++i) {
        if (!db->transaction([](Database& d) { return increment(d, 5); })) ++failures;
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "node " << node << ": " << e.what();
      ++failures;
    }
  };
  std::thread one(worker, 1), two(worker, 2);
  one.join();
  two.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(value_on(3, 5), 2 * kEach);
}

}  // namespace
}  // namespace tharsis
