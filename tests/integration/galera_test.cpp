// The database layer on a real 3-node MariaDB Galera cluster (scripts/private_galera.sh):
// a connection fails over when its node is killed or leaves the primary component (1047),
// and returns to its node once that node has rejoined; two connections on two nodes
// writing the same row: Galera's certification conflict (reported as a deadlock, 1213)
// is retried and the re-run transaction computes on the winner's value. On the real
// schema, the scheduler's claims from two nodes: each result sent once, and one host
// never two results of one workunit, although row locks hold on one node only. Skipped
// with a message on a machine without galera-4.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "db/database.h"
#include "db/host_store.h"
#include "db/mariadb_errors.h"
#include "db/result_store.h"
#include "db/schema_loader.h"
#include "db/sql.h"
#include "db/states.h"
#include "tests/support/galera_cluster.h"

namespace tharsis {
namespace {

using testing::GaleraCluster;

const char* const kDbName = "galera_t";

class Galera : public ::testing::Test {
 protected:
  // One cluster for every Galera test: the ctest run's (fixture galera_start), or one
  // this process starts and stops at exit. Starting one costs ~15 s of a shared CPU.
  static void SetUpTestSuite() {
    skip_reason_ = GaleraCluster::missing_prerequisite();
    if (!skip_reason_.empty() || cluster_) return;
    cluster_ = &GaleraCluster::shared();
    auto db = Database::open(cluster_->admin_only(1));
    exec(*db, std::string("CREATE DATABASE IF NOT EXISTS ") + kDbName);
    exec(*db, std::string("CREATE TABLE IF NOT EXISTS ") + kDbName +
                  ".counter (id INT PRIMARY KEY, v BIGINT NOT NULL, runs BIGINT NOT NULL DEFAULT 0)");
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
  // Node `node` alone, reading only after it applied every write committed anywhere
  // before (wsrep_sync_wait): replication applies asynchronously after certification.
  static std::unique_ptr<Database> only_node(int node) {
    DbConfig config = cluster_->admin_only(node);
    config.name = kDbName;
    auto db = Database::open(config);
    exec(*db, "SET SESSION wsrep_sync_wait = 1");
    return db;
  }
  static void reset_counter(int id) {
    auto db = only_node(1);
    exec(*db, "REPLACE INTO counter (id, v, runs) VALUES (?, 0, 0)", id);
    // Every node has applied it before the test writes there (replication applies
    // asynchronously after certification).
    for (int node = 2; node <= cluster_->nodes(); ++node) EXPECT_EQ(value_on(node, id), 0);
  }
  static int64_t value_on(int node, int id) {
    return query_int(*only_node(node), "SELECT v FROM counter WHERE id = ?", id);
  }

  static std::string skip_reason_;
  static GaleraCluster* cluster_;
};

std::string Galera::skip_reason_;
GaleraCluster* Galera::cluster_ = nullptr;

// Read, then a guarded write of read + 1: the pattern of every Tharsis state change.
// Returns whether the guarded UPDATE matched (it must, inside a successful transaction).
bool increment(Database& d, int id) {
  int64_t v = query_int(d, "SELECT v FROM counter WHERE id = ?", id);
  return exec(d, "UPDATE counter SET v = ?, runs = runs + 1 WHERE id = ? AND v = ?", v + 1, id, v) == 1;
}

// A program reading with causal_reads (the upload handler) sees a row written on another
// node the moment that write has committed, never an older state. (Without it, node 1
// was seen answering with the value before the write just committed on node 2.)
TEST_F(Galera, CausalReadsSeeWhatAnotherNodeJustCommitted) {
  reset_counter(3);
  DbConfig config = cluster_->admin(1);  // the cluster, as a project's config.xml lists it
  config.name = kDbName;
  config.causal_reads = true;
  auto reader = Database::open(config);
  EXPECT_EQ(query_int(*reader, "SELECT @@wsrep_sync_wait"), 1);
  auto writer = on_node(2);
  for (int i = 1; i <= 20; ++i) {
    exec(*writer, "UPDATE counter SET v = ? WHERE id = 3", i);
    ASSERT_EQ(query_int(*reader, "SELECT v FROM counter WHERE id = 3"), i);
  }
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
  EXPECT_EQ(query_int(*fresh, "SELECT v FROM counter WHERE id = 1"), 2);
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
  exec(*admin, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'");
  bool cut_off = false;
  for (int i = 0; i < 100 && !cut_off; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto rows = query(*admin, "SHOW GLOBAL STATUS LIKE 'wsrep_ready'");
    cut_off = rows->next() && std::string(rows->getString(2)) == "OFF";
  }
  ASSERT_TRUE(cut_off) << "node 1 did not leave the primary component";
  try {
    query_int(*admin, std::string("SELECT COUNT(*) FROM ") + kDbName + ".counter");
    ADD_FAILURE() << "a statement on a non-primary node should fail";
  } catch (const DbError& e) {
    EXPECT_EQ(e.code(), mariadb_error::kUnknownCom) << e.what();
    EXPECT_TRUE(e.connection_lost());
  }
  admin = Database::open(cluster_->admin_only(1));  // the error dropped the connection
  ASSERT_TRUE(db->transaction([](Database& d) { return increment(d, 3); }));
  EXPECT_EQ(db->current_node(), 1) << "node 2 is fall-back 1 of node 1";
  EXPECT_EQ(value_on(2, 3), 2);

  exec(*admin, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
  EXPECT_TRUE(cluster_->wait_healthy(60)) << "node 1 did not rejoin after gmcast.isolate=0";
}

// The failure the pipeline test met with a node rejoining under load: a write committed
// just as its node leaves the primary component is not replicated (1180, or 1047 when the
// node already refuses), and rolled back. The transaction is run again from the start on
// another node, neither lost nor applied twice; a daemon waits it out instead of exiting.
TEST_F(Galera, CommitAsItsNodeLeavesThePrimaryComponentIsRunAgainOnAnother) {
  reset_counter(6);
  auto db = on_node(1);
  auto admin = Database::open(cluster_->admin_only(1));
  int runs = 0;
  bool written = db->transaction([&](Database& d) {
    bool ok = increment(d, 6);
    if (++runs == 1) {  // written, not committed: now cut node 1 off the group
      exec(*admin, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'");
      bool cut_off = false;
      for (int i = 0; i < 100 && !cut_off; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        auto rows = query(*admin, "SHOW GLOBAL STATUS LIKE 'wsrep_cluster_status'");
        cut_off = rows->next() && std::string(rows->getString(2)) != "Primary";
      }
      EXPECT_TRUE(cut_off) << "node 1 did not leave the primary component";
    }
    return ok;
  });
  EXPECT_TRUE(written);
  EXPECT_EQ(runs, 2) << "run again once, after the failed commit";
  EXPECT_GE(db->current_node(), 1) << "the second run is on a fall-back node";
  EXPECT_EQ(value_on(2, 6), 1) << "applied once";
  admin = Database::open(cluster_->admin_only(1));
  exec(*admin, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
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
  EXPECT_EQ(query_int(*only_node(3), "SELECT runs FROM counter WHERE id = 4"), 2);
}

// Two nodes incrementing one row as the daemons write: read, then a guarded UPDATE.
// A guarded write that finds the row changed writes nothing (a daemon leaves the unit for
// its next pass; here the worker tries again); a conflict at commit re-runs the whole
// transaction. Every increment that reported success is in the row, none twice.
TEST_F(Galera, ConcurrentIncrementsOnTwoNodesLoseNothing) {
  reset_counter(5);
  constexpr int kEach = 40;
  std::atomic<int> done{0}, refused{0};
  auto worker = [&](int node) {
    try {
      auto db = on_node(node);
      for (int made = 0, attempts = 0; made < kEach && attempts < 20 * kEach; ++attempts) {
        if (db->transaction([](Database& d) { return increment(d, 5); })) {
          ++made;
          ++done;
        } else {
          ++refused;
        }
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "node " << node << ": " << e.what();
    }
  };
  std::thread one(worker, 1), two(worker, 2);
  one.join();
  two.join();
  EXPECT_EQ(done.load(), 2 * kEach) << refused.load() << " guarded writes refused";
  EXPECT_EQ(value_on(3, 5), done.load());
  EXPECT_EQ(query_int(*only_node(2), "SELECT runs FROM counter WHERE id = 5"), done.load());
}

// The scheduler's writes on the real schema, two scheduler processes on two nodes.
class GaleraScheduler : public Galera {
 protected:
  static constexpr int64_t kNow = 1'000'000;
  void SetUp() override {
    Galera::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    static int counter = 0;
    name_ = "galera_s" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    create_database(cluster_->admin_only(1), name_);
    one_ = open_schema(1);
    two_ = open_schema(2);
    host_ = insert_host(*one_, HostRow{});
  }
  void TearDown() override {
    one_.reset();
    two_.reset();
    if (!name_.empty()) drop_database(cluster_->admin_only(1), name_);
    Galera::TearDown();
  }
  std::unique_ptr<Database> open_schema(int node) {
    DbConfig config = cluster_->admin(node);
    config.name = name_;
    return Database::open(config);
  }
  // Workunit `wu` with `n` UNSENT results; transition_time 0, so a claim's
  // LEAST(transition_time, deadline) leaves the workunit row unchanged. Returns their ids.
  std::vector<int64_t> add_workunit(int64_t wu, int n) {
    exec(*one_,
         "INSERT INTO workunit (id, appid, name, xml_doc, delay_bound, transition_time) "
         "VALUES (?, 1, CONCAT('wu', ?), '', 3600, 0)",
         wu, wu);
    exec(*one_,
         "INSERT INTO result (workunitid, appid, name, server_state, xml_doc_in, xml_doc_out) "
         "SELECT ?, 1, CONCAT('wu', ?, '_', seq), ?, '', '' FROM seq_1_to_" +
             std::to_string(n),
         wu, wu, ServerState::Unsent);
    std::vector<int64_t> ids;
    auto rows = query(*one_, "SELECT id FROM result WHERE workunitid = ? ORDER BY id", wu);
    while (rows->next()) ids.push_back(rows->getInt64(1));
    // Node 2 applies these rows asynchronously: wait until it has (a causal read there).
    EXPECT_EQ(results_of_host(2, wu, 0), n);
    return ids;
  }
  SendClaim claim_of(int64_t result_id, int64_t wu, int64_t host) {
    return SendClaim{result_id, wu, host, 1, kNow, 3600, 7};
  }
  int64_t results_of_host(int node, int64_t wu, int64_t host = -1) {
    DbConfig config = cluster_->admin_only(node);
    config.name = name_;
    auto db = Database::open(config);
    exec(*db, "SET SESSION wsrep_sync_wait = 1");  // after every write committed before
    return query_int(*db, "SELECT COUNT(*) FROM result WHERE workunitid = ? AND hostid = ?", wu,
                     host < 0 ? host_ : host);
  }

  std::string name_;
  std::unique_ptr<Database> one_, two_;
  int64_t host_ = 0;
};

TEST_F(GaleraScheduler, ResultsRacedForOnTwoNodesAreEachSentOnce) {
  constexpr int kResults = 30;
  std::vector<int64_t> ids;
  for (int wu = 1; wu <= kResults; ++wu) ids.push_back(add_workunit(wu, 1).front());
  std::map<int64_t, int> winners;  // result id -> claims that returned true
  std::mutex mutex;
  auto racer = [&](int node, int64_t host) {
    try {
      auto db = open_schema(node);
      for (size_t i = 0; i < ids.size(); ++i) {
        SendClaim c = claim_of(ids[i], static_cast<int64_t>(i) + 1, host);
        if (db->transaction([&](Database& d) { return claim_unsent_result(d, c); })) {
          std::lock_guard<std::mutex> lock(mutex);
          ++winners[ids[i]];
        }
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "node " << node << ": " << e.what();
    }
  };
  std::thread a(racer, 1, 1001), b(racer, 2, 1002);
  a.join();
  b.join();
  for (int64_t id : ids) EXPECT_EQ(winners[id], 1) << "result " << id << " sent " << winners[id] << " times";
  EXPECT_EQ(query_int(*one_, "SELECT COUNT(*) FROM result WHERE server_state = ? AND hostid IN (1001, 1002)",
                      ServerState::InProgress),
            kResults);
}

// Finding of the row-lock audit (db/result_store.cpp, claim): "never two results of one
// workunit to one host" is read under the workunit's row lock, which on Galera holds on
// one node only. Two claims of one host on two nodes for two results of one workunit
// both commit when nothing else is written...
TEST_F(GaleraScheduler, AWorkunitLockOnOneNodeDoesNotStopAClaimOnAnother) {
  auto ids = add_workunit(50, 2);
  bool first = one_->transaction([&](Database& d) {
    bool won = claim_unsent_result(d, claim_of(ids[0], 50, host_));
    // Node 1 holds its workunit row lock; node 2 does not see it.
    if (won) {
      EXPECT_TRUE(two_->transaction(
          [&](Database& d2) { return claim_unsent_result(d2, claim_of(ids[1], 50, host_)); }));
    }
    return won;
  });
  EXPECT_TRUE(first);
  EXPECT_EQ(results_of_host(3, 50), 2) << "the lock alone does not keep the host to one result";
}

// ...and the scheduler's claim transaction is safe because it also changes the host row
// (add_results_sent / update_host): the second commit fails certification, and its re-run
// finds the first's result and claims nothing.
TEST_F(GaleraScheduler, OneHostOnTwoNodesNeverGetsTwoResultsOfOneWorkunit) {
  auto ids = add_workunit(60, 2);
  int runs = 0;
  bool won_on_one = one_->transaction([&](Database& d) {
    ++runs;
    bool won = claim_unsent_result(d, claim_of(ids[0], 60, host_));
    if (won) add_results_sent(d, host_, kNow, 1);
    if (runs == 1) {
      EXPECT_TRUE(two_->transaction([&](Database& d2) {
        bool won2 = claim_unsent_result(d2, claim_of(ids[1], 60, host_));
        if (won2) add_results_sent(d2, host_, kNow, 1);
        return won2;
      }));
    }
    return won;
  });
  EXPECT_EQ(runs, 2) << "node 1's claim must have failed certification on the host row";
  EXPECT_FALSE(won_on_one);
  for (int node = 1; node <= 3; ++node) EXPECT_EQ(results_of_host(node, 60), 1) << "node " << node;
}

}  // namespace
}  // namespace tharsis
