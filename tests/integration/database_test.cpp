// The DB layer against a real private MariaDB: schema, typed round trips, transactions
// that survive a killed connection, deadlocks and a dead server, and disjoint shards.
#include "db/database.h"

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <set>
#include <thread>

#include "db/result_store.h"
#include "db/schema_loader.h"
#include "db/sql.h"
#include "db/workunit_store.h"
#include "lib/result.h"
#include "tests/support/test_database.h"

namespace tharsis {
namespace {

using testing::DedicatedServer;
using testing::TestDatabase;

WorkunitRow sample_workunit(const std::string& name) {
  WorkunitRow wu;
  wu.create_time = 1000;
  wu.appid = 1;
  wu.name = name;
  wu.xml_doc = "<file_ref><file_name>in_" + name + "</file_name></file_ref>";
  wu.rsc_fpops_est = 1e12;
  wu.rsc_memory_bound = 1e8;
  wu.delay_bound = 3600;
  wu.min_quorum = 2;
  wu.target_nresults = 2;
  wu.transition_time = 1000;
  return wu;
}

// Two connections each add 1 to the batch of workunits a and b, in opposite orders, each
// holding its first row until the other holds its own: a deadlock, whose victim runs
// again. Returns the retries of both.
int64_t add_one_to_a_and_b_crosswise(const DbConfig& config) {
  std::barrier both_hold_first_lock(2);
  std::atomic<int64_t> retries{0};
  auto worker = [&](const char* first, const char* second) {
    auto db = Database::open(config);
    bool first_attempt = true;
    db->transaction([&](Database& d) {
      exec(d, "UPDATE workunit SET batch = batch + 1 WHERE name = ?", std::string(first));
      if (first_attempt) {
        first_attempt = false;
        both_hold_first_lock.arrive_and_wait();
      }
      exec(d, "UPDATE workunit SET batch = batch + 1 WHERE name = ?", std::string(second));
    });
    retries += db->retries();
  };
  std::thread t1(worker, "a", "b");
  std::thread t2(worker, "b", "a");
  t1.join();
  t2.join();
  return retries.load();
}

TEST(Database, SchemaLoadsAndWorkunitRoundTrips) {
  TestDatabase tdb;
  auto db = tdb.open();
  WorkunitRow wu = sample_workunit("wu_roundtrip");
  wu.error_mask = 3;
  wu.assimilate_state = AssimilateState::Ready;
  wu.need_validate = true;
  wu.id = insert_workunit(*db, wu);
  ASSERT_GT(wu.id, 0);
  auto back = fetch_workunit(*db, wu.id);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->name, "wu_roundtrip");
  EXPECT_EQ(back->xml_doc, wu.xml_doc);
  EXPECT_EQ(back->error_mask, 3);
  EXPECT_EQ(back->assimilate_state, AssimilateState::Ready);
  EXPECT_TRUE(back->need_validate);
  EXPECT_DOUBLE_EQ(back->rsc_fpops_est, 1e12);
  EXPECT_FALSE(fetch_workunit(*db, wu.id + 1000).has_value());
}

TEST(Database, ResultRoundTripsAndGuardedUpdateRefusesStaleState) {
  TestDatabase tdb;
  auto db = tdb.open();
  int64_t wu_id = insert_workunit(*db, sample_workunit("wu_r"));
  ResultRow r;
  r.workunitid = wu_id;
  r.appid = 1;
  r.name = "wu_r_0";
  r.xml_doc_out = "<file_info><name>it's \"quoted\" & <tagged></name></file_info>";
  r.id = insert_result(*db, r);
  auto loaded = fetch_result(*db, r.id);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->server_state, ServerState::Unsent);
  EXPECT_EQ(loaded->xml_doc_out, r.xml_doc_out);

  ResultUpdate send{*loaded, *loaded};
  send.after.server_state = ServerState::InProgress;
  send.after.report_deadline = 5000;
  EXPECT_TRUE(update_result_guarded(*db, send));
  // The same update again: `before` no longer matches the row, so nothing is written.
  ResultUpdate stale = send;
  stale.after.server_state = ServerState::Over;
  EXPECT_FALSE(update_result_guarded(*db, stale));
  EXPECT_EQ(fetch_result(*db, r.id)->server_state, ServerState::InProgress);
  // Re-applying exactly the committed change matches and reports success (idempotent).
  ResultUpdate again{send.after, send.after};
  EXPECT_TRUE(update_result_guarded(*db, again));
  EXPECT_EQ(fetch_results_of_workunit(*db, wu_id).size(), 1u);
}

TEST(Database, ConnectionKilledServerSideIsReestablished) {
  TestDatabase tdb;
  auto db = tdb.open();
  auto killer = tdb.open();
  insert_workunit(*db, sample_workunit("wu_kill"));
  int64_t victim = db->connection_id();
  exec(*killer, "KILL CONNECTION ?", victim);
  int64_t count = db->transaction([](Database& d) { return query_int(d, "SELECT COUNT(*) FROM workunit"); });
  EXPECT_EQ(count, 1);
  EXPECT_NE(db->connection_id(), victim);
  EXPECT_GE(db->retries(), 1);
}

// One Database per thread: a second thread's call while a statement of the first is on the
// connection is refused with a clear error (it used to interleave with the first's packets
// and fail as a protocol error, CI 2026-11-28), and the first's statement and the
// connection are unharmed.
TEST(Database, ASecondThreadOnABusyConnectionIsRefusedAndTheFirstGoesOn) {
  TestDatabase tdb;
  auto db = tdb.open();
  auto watcher = tdb.open();
  const int64_t id = db->connection_id();
  std::atomic<bool> slept{false};
  std::thread sleeper([&] {
    EXPECT_EQ(query_int(*db, "SELECT SLEEP(2) + 7"), 7);
    slept = true;
  });
  // Until the server runs the sleep on db's connection, the other call could come first.
  for (int i = 0; i < 400 && query_int(*watcher,
                                       "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                                       "WHERE ID = ? AND INFO LIKE 'SELECT SLEEP%'",
                                       id) == 0;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_FALSE(slept) << "the sleep ended before the second call";
  try {
    query_int(*db, "SELECT 1");
    ADD_FAILURE() << "a second thread's statement ran on a busy connection";
  } catch (const DbError& e) {
    EXPECT_EQ(e.code(), kConnectionInUse) << e.what();
  }
  EXPECT_THROW(db->transaction([](Database& d) { exec(d, "DO 1"); }), DbError);
  sleeper.join();
  EXPECT_TRUE(slept);
  EXPECT_EQ(db->connection_id(), id) << "the refused calls cost the connection";
  EXPECT_EQ(db->transaction([](Database& d) { return query_int(d, "SELECT 41 + 1"); }), 42);
}

TEST(Database, DeadlockIsRetriedAndBothTransactionsCommitOnce) {
  TestDatabase tdb;
  {
    auto db = tdb.open();
    insert_workunit(*db, sample_workunit("a"));
    insert_workunit(*db, sample_workunit("b"));
  }
  int64_t retries = add_one_to_a_and_b_crosswise(tdb.config());
  auto db = tdb.open();
  EXPECT_EQ(query_int(*db, "SELECT batch FROM workunit WHERE name = 'a'"), 2);
  EXPECT_EQ(query_int(*db, "SELECT batch FROM workunit WHERE name = 'b'"), 2);
  EXPECT_GE(retries, 1);  // one of them was the deadlock victim and ran again
}

TEST(Database, ExceptionInsideTransactionRollsBack) {
  TestDatabase tdb;
  auto db = tdb.open();
  EXPECT_THROW(db->transaction([](Database& d) {
    insert_workunit(d, sample_workunit("doomed"));
    throw std::runtime_error("handler failed");
  }),
               std::runtime_error);
  EXPECT_FALSE(fetch_workunit_by_name(*db, "doomed").has_value());
}

TEST(Database, ErrorResultReturnedFromTransactionRollsBackAndIsReturned) {
  TestDatabase tdb;
  auto db = tdb.open();
  Result<int64_t> refused = db->transaction([](Database& d) -> Result<int64_t> {
    insert_workunit(d, sample_workunit("refused"));
    return make_error("the submitter may not");
  });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), "the submitter may not");
  EXPECT_FALSE(fetch_workunit_by_name(*db, "refused").has_value());
  Status kept = db->transaction([](Database& d) -> Status {
    insert_workunit(d, sample_workunit("kept"));
    return Status::success();
  });
  EXPECT_TRUE(kept.ok());
  EXPECT_TRUE(fetch_workunit_by_name(*db, "kept").has_value());
}

// implicit_begin (the scheduler's session: autocommit off): a transaction sends no START
// TRANSACTION, commits once, and re-runs after a deadlock as before; a statement outside a
// transaction is committed at once, or rolled back when it fails, so nothing it wrote or
// locked stays held: another connection sees the write and locks the row at once.
TEST(Database, ImplicitBeginSendsNoStartAndLeavesNoTransactionOpen) {
  TestDatabase tdb;
  DbConfig config = tdb.config();
  config.implicit_begin = true;
  auto db = Database::open(config);
  auto other = tdb.open();
  auto session = [&](const char* name) {
    return query_int(*db,
                     "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = ?",
                     std::string(name));
  };
  int64_t begins = session("COM_BEGIN");
  db->transaction([](Database& d) {
    insert_workunit(d, sample_workunit("a"));
    insert_workunit(d, sample_workunit("b"));
  });
  EXPECT_EQ(session("COM_BEGIN"), begins);
  EXPECT_TRUE(fetch_workunit_by_name(*other, "a").has_value());
  EXPECT_THROW(db->transaction([](Database& d) {
    insert_workunit(d, sample_workunit("doomed"));
    throw std::runtime_error("handler failed");
  }),
               std::runtime_error);
  EXPECT_FALSE(fetch_workunit_by_name(*other, "doomed").has_value());

  // Outside a transaction: a write is visible and its row free at once.
  exec(*db, "UPDATE workunit SET batch = 7 WHERE name = 'a'");
  EXPECT_EQ(query_int(*other, "SELECT batch FROM workunit WHERE name = 'a' FOR UPDATE NOWAIT"), 7);
  // A statement that locks a row and then fails (duplicate name): rolled back, lock gone.
  EXPECT_THROW(exec(*db, "UPDATE workunit SET name = 'b' WHERE name = 'a'"), DbError);
  EXPECT_EQ(query_int(*other, "SELECT batch FROM workunit WHERE name = 'a' FOR UPDATE NOWAIT"), 7);
  EXPECT_EQ(
      query_int(*other, "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = ?",
                db->connection_id()),
      0);
  // A query's rows are read after its commit.
  auto rows = query(*db, "SELECT name FROM workunit ORDER BY name");
  std::vector<std::string> names;
  while (rows->next()) names.push_back(rows->getString(1));
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));

  // A deadlock victim is re-run whole, as without implicit_begin.
  EXPECT_GE(add_one_to_a_and_b_crosswise(config), 1);
  EXPECT_EQ(query_int(*other, "SELECT batch FROM workunit WHERE name = 'a'"), 9);
  EXPECT_EQ(query_int(*other, "SELECT batch FROM workunit WHERE name = 'b'"), 2);
}

TEST(Database, ModShardsAreDisjointAndCoverAllIds) {
  TestDatabase tdb;
  auto db = tdb.open();
  std::set<int64_t> all;
  for (int i = 0; i < 31; ++i) all.insert(insert_workunit(*db, sample_workunit("s" + std::to_string(i))));
  std::set<int64_t> seen;
  for (int id = 0; id < 3; ++id) {
    for (int64_t wu_id : fetch_due_workunit_ids(*db, 2000, Shard{3, id}, 1000)) {
      EXPECT_EQ(wu_id % 3, id);
      EXPECT_TRUE(seen.insert(wu_id).second) << "workunit " << wu_id << " in two shards";
    }
  }
  EXPECT_EQ(seen, all);
  EXPECT_TRUE(fetch_due_workunit_ids(*db, 999, Shard{}, 1000).empty());  // not yet due
}

TEST(Database, DeadServerGivesClearErrorAndWorksAfterRestart) {
  DedicatedServer server;
  create_database(server.admin(), "deadtest");
  DbConfig config = server.admin();
  config.name = "deadtest";
  auto db = Database::open(config);
  insert_workunit(*db, sample_workunit("before"));
  server.halt();
  auto started = std::chrono::steady_clock::now();
  try {
    db->transaction([](Database& d) { query_int(d, "SELECT COUNT(*) FROM workunit"); });
    FAIL() << "expected a DbError with the server down";
  } catch (const DbError& e) {
    EXPECT_TRUE(e.connection_lost()) << e.what();
    EXPECT_NE(std::string(e.what()).find("MariaDB"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_THROW(Database::open(config), DbError);
  server.start();
  EXPECT_EQ(db->transaction([](Database& d) { return query_int(d, "SELECT COUNT(*) FROM workunit"); }), 1);
}

}  // namespace
}  // namespace tharsis
