// The scheduler's writes to results (db/result_store.h: claim, resend, report) against a
// real MariaDB: many connections racing for a few unsent results never send one to two
// hosts; a report changes a result once, only for its host and only while in progress;
// and each write locks the workunit row before the result row, the order the daemons
// use (seen from a third connection while the write waits for a result row held by a second).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <latch>
#include <map>
#include <stdexcept>
#include <thread>
#include <vector>

#include "db/host_store.h"
#include "db/result_store.h"
#include "db/send_store.h"
#include "db/sql.h"
#include "db/user_store.h"
#include "sched/lib/result_acceptance.h"
#include "tests/support/rows_read.h"
#include "tests/support/test_database.h"

namespace tharsis::scheduler_writes_test {
namespace {

using testing::TestDatabase;

constexpr int64_t kNow = 1'000'000;

class SchedulerWrites : public ::testing::Test {
 protected:
  void SetUp() override { db_ = tdb_.open(); }

  // `n` workunits, each with one UNSENT result; returns the result ids (workunit i+1 has result ids[i]).
  std::vector<int64_t> add_unsent(int n) {
    int64_t first_wu = query_int(*db_, "SELECT COALESCE(MAX(id), 0) FROM workunit") + 1;
    exec(*db_,
         "INSERT INTO workunit (appid, name, xml_doc, delay_bound, transition_time) "
         "SELECT 1, CONCAT('wu', ? + seq), '', 3600, 9999999 FROM seq_1_to_" +
             std::to_string(n),
         first_wu);
    exec(*db_,
         "INSERT INTO result (workunitid, appid, name, server_state, xml_doc_in, xml_doc_out) "
         "SELECT id, 1, CONCAT(name, '_0'), 2, '', '' FROM workunit WHERE id >= ? ORDER BY id",
         first_wu);
    std::vector<int64_t> ids;
    auto rows = query(*db_, "SELECT id FROM result WHERE workunitid >= ? ORDER BY workunitid", first_wu);
    while (rows->next()) ids.push_back(rows->getInt64(1));
    return ids;
  }
  int64_t workunit_of(int64_t result_id) {
    return query_int(*db_, "SELECT workunitid FROM result WHERE id = ?", result_id);
  }
  bool claim(Database& db, int64_t result_id, int64_t host_id) {
    SendClaim c{result_id, workunit_of(result_id), host_id, 1, kNow, 3600, 7};
    return db.transaction([&](Database& d) { return claim_unsent_result(d, c); });
  }
  // Whether another connection finds the row locked (NOWAIT: an error at once if it is;
  // autocommit, so nothing is retried and the lock, if taken, goes with the statement).
  bool locked(const std::string& table, int64_t id) {
    auto other = tdb_.open();
    try {
      query_int(*other, "SELECT id FROM " + table + " WHERE id = ? FOR UPDATE NOWAIT", id);
      return false;
    } catch (const DbError& e) {
      return true;
    }
  }
  // Whether the row becomes locked by another transaction, polled for up to 30 s (the
  // write under test runs in another thread; INNODB_TRX does not always list a write that
  // waits inside the optimizer, so the lock itself is what is watched).
  bool becomes_locked(const std::string& table, int64_t id) {
    for (int i = 0; i < 3000; ++i) {
      if (locked(table, id)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  // A second UNSENT result, named `name`, of the workunit of `result_id`; returns its id.
  int64_t add_twin(int64_t result_id, const std::string& name) {
    exec(*db_,
         "INSERT INTO result (workunitid, appid, name, server_state, xml_doc_in, xml_doc_out) "
         "VALUES (?, 1, ?, 2, '', '')",
         workunit_of(result_id), name);
    return query_int(*db_, "SELECT id FROM result WHERE name = ?", name);
  }
  // A result of the workunit of `result_id` that host `host_id` had and reported.
  void add_had_before(int64_t result_id, int64_t host_id) {
    exec(*db_,
         "INSERT INTO result (workunitid, appid, name, server_state, outcome, hostid, xml_doc_in, "
         "xml_doc_out) "
         "VALUES (?, 1, CONCAT('had_before_', ?), 5, 1, ?, '', '')",
         workunit_of(result_id), result_id, host_id);
  }
  // Prepared statements `d`'s session has executed (not counting a first prepare).
  static int64_t executions(Database& d) {
    return query_int(d,
                     "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = "
                     "'COM_STMT_EXECUTE'");
  }

  TestDatabase tdb_;
  std::unique_ptr<Database> db_;
};

TEST_F(SchedulerWrites, ManyConnectionsRacingForFewUnsentResultsNeverSendOneTwice) {
  constexpr int kThreads = 8, kRounds = 15, kResults = 3;
  std::map<int64_t, std::vector<int64_t>> winners;  // result id -> hosts that won it
  for (int round = 0; round < kRounds; ++round) {
    std::vector<int64_t> ids = add_unsent(kResults);
    std::vector<int64_t> wus;
    for (int64_t id : ids) wus.push_back(workunit_of(id));
    std::vector<std::vector<int64_t>> won(kThreads);
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        auto db = tdb_.open();
        start.arrive_and_wait();
        // Every thread wants every result, each in its own order.
        for (int k = 0; k < kResults; ++k) {
          size_t i = static_cast<size_t>((t + k) % kResults);
          SendClaim c{ids[i], wus[i], 100 + t, 1, kNow, 3600, 7};
          if (db->transaction([&](Database& d) { return claim_unsent_result(d, c); }))
            won[t].push_back(ids[i]);
        }
      });
    }
    for (auto& t : threads) t.join();
    for (int t = 0; t < kThreads; ++t) {
      for (int64_t id : won[t]) winners[id].push_back(100 + t);
    }
  }
  ASSERT_EQ(winners.size(), static_cast<size_t>(kRounds * kResults)) << "some result was never claimed";
  for (const auto& [id, hosts] : winners) {
    ASSERT_EQ(hosts.size(), 1u) << "result " << id << " was claimed by " << hosts.size() << " hosts";
    auto row = fetch_result(*db_, id);
    EXPECT_EQ(row->hostid, hosts[0]);
    EXPECT_EQ(row->server_state, ServerState::InProgress);
    EXPECT_EQ(row->report_deadline, kNow + 3600);
    EXPECT_EQ(row->app_version_id, 7);
  }
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE transition_time = ?", kNow + 3600),
            kRounds * kResults);
}

TEST_F(SchedulerWrites, ClaimNamingTheWrongWorkunitOrASentResultChangesNothing) {
  std::vector<int64_t> ids = add_unsent(2);
  SendClaim wrong{ids[0], workunit_of(ids[1]), 5, 1, kNow, 3600, 7};
  EXPECT_FALSE(db_->transaction([&](Database& d) { return claim_unsent_result(d, wrong); }));
  EXPECT_EQ(fetch_result(*db_, ids[0])->server_state, ServerState::Unsent);
  EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", workunit_of(ids[1])),
            9999999);
  EXPECT_TRUE(claim(*db_, ids[0], 5));
  EXPECT_FALSE(claim(*db_, ids[0], 6));
  EXPECT_EQ(fetch_result(*db_, ids[0])->hostid, 5);
}

// Never two results of one workunit to one host, also once the first is over.
TEST_F(SchedulerWrites, ClaimRefusesASecondResultOfAWorkunitToTheSameHost) {
  std::vector<int64_t> ids = add_unsent(1);
  int64_t wu = workunit_of(ids[0]);
  exec(*db_,
       "INSERT INTO result (workunitid, appid, name, server_state, xml_doc_in, xml_doc_out) "
       "VALUES (?, 1, 'second', 2, '', '')",
       wu);
  int64_t second = query_int(*db_, "SELECT id FROM result WHERE name = 'second'");
  ASSERT_TRUE(claim(*db_, ids[0], 5));
  ASSERT_TRUE(db_->transaction([&](Database& d) {
    return mark_result_reported_by_name(d, fetch_result(d, ids[0])->name, 5, kNow, ResultReport{});
  }));
  EXPECT_FALSE(claim(*db_, second, 5)) << "the host that computed the first result got the second";
  EXPECT_TRUE(db_->transaction([&](Database& d) { return host_has_result_of(d, wu, 5); }));
  EXPECT_TRUE(claim(*db_, second, 6));
}

// A round of claims is one statement however many it holds, and each claim keeps the
// one-claim guards: a result already sent elsewhere, or of a workunit the host had a
// result of, is not taken, and only what was taken is returned.
TEST_F(SchedulerWrites, RoundOfClaimsIsOneStatementAndKeepsEachClaimsGuards) {
  auto statements_so_far = [](Database& d) {  // executions, not counting a first prepare
    return query_int(d,
                     "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = "
                     "'COM_STMT_EXECUTE'");
  };
  auto claims_for = [&](const std::vector<int64_t>& ids, int64_t host) {
    std::vector<SendClaim> claims;
    for (int64_t id : ids) claims.push_back({id, workunit_of(id), host, 1, kNow, 3600, 7});
    return claims;
  };
  std::vector<int64_t> all = add_unsent(3);
  std::vector<int64_t> won;
  std::vector<SendClaim> claims = claims_for(all, 5);
  int64_t statements = db_->transaction([&](Database& d) {
    int64_t before = statements_so_far(d);
    won = claim_unsent_results(d, claims);
    return statements_so_far(d) - before - 1;  // less the counter's own read
  });
  EXPECT_EQ(won, all);
  EXPECT_EQ(statements, 1) << "a round of three claims took " << statements << " statements";
  for (int64_t id : all) {
    auto row = fetch_result(*db_, id);
    EXPECT_EQ(row->hostid, 5);
    EXPECT_EQ(row->server_state, ServerState::InProgress);
    EXPECT_EQ(row->report_deadline, kNow + 3600);
    EXPECT_EQ(row->app_version_id, 7);
    EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", workunit_of(id)),
              kNow + 3600);
  }

  std::vector<int64_t> ids = add_unsent(4);
  ASSERT_TRUE(claim(*db_, ids[1], 9));  // sent elsewhere first
  add_had_before(ids[2], 5);
  won = db_->transaction([&](Database& d) { return claim_unsent_results(d, claims_for(ids, 5)); });
  EXPECT_EQ(won, (std::vector<int64_t>{ids[0], ids[3]}));
  EXPECT_EQ(fetch_result(*db_, ids[1])->hostid, 9);
  EXPECT_EQ(fetch_result(*db_, ids[2])->server_state, ServerState::Unsent);
  EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", workunit_of(ids[2])),
            9999999);
  EXPECT_EQ(fetch_result(*db_, ids[3])->hostid, 5);

  // Two claims of one workunit would both pass the once-per-host guard: refused outright.
  std::vector<int64_t> more = add_unsent(1);
  int64_t twin = add_twin(more[0], "twin");
  std::vector<SendClaim> twins = claims_for({more[0]}, 6);
  twins.push_back({twin, workunit_of(more[0]), 6, 1, kNow, 3600, 7});
  EXPECT_THROW(db_->transaction([&](Database& d) { return claim_unsent_results(d, twins); }),
               std::invalid_argument);
  EXPECT_EQ(fetch_result(*db_, more[0])->server_state, ServerState::Unsent);
  EXPECT_EQ(fetch_result(*db_, twin)->server_state, ServerState::Unsent);
}

// The round's once-per-host guard looks up each claimed workunit's rows for this host
// (res_wu_host), never all of the host's results: a host with a long history (results
// kept until purged) pays no more per claim than a new one.
TEST_F(SchedulerWrites, RoundOfClaimsReadsNotTheHostsHistory) {
  auto claims_for = [&](const std::vector<int64_t>& ids, int64_t host) {
    std::vector<SendClaim> claims;
    for (int64_t id : ids) claims.push_back({id, workunit_of(id), host, 1, kNow, 3600, 7});
    return claims;
  };
  auto rows_to_claim = [&](int64_t host, int n) {  // a round of n (one: the one-claim statement)
    std::vector<SendClaim> claims = claims_for(add_unsent(n), host);
    return db_->transaction([&](Database& d) {
      int64_t before = testing::rows_read(d);
      int64_t overhead = testing::rows_read(d) - before;
      before = testing::rows_read(d);
      EXPECT_EQ(claim_unsent_results(d, claims).size(), static_cast<size_t>(n));
      return testing::rows_read(d) - before - overhead;
    });
  };
  int64_t fresh = rows_to_claim(5, 4);
  int64_t fresh_one = rows_to_claim(5, 1);
  exec(*db_,
       "INSERT INTO result (workunitid, appid, name, server_state, outcome, hostid, xml_doc_in, xml_doc_out) "
       "SELECT 1, 1, CONCAT('old_', seq), 5, 1, 6, '', '' FROM seq_1_to_3000");
  query(*db_, "ANALYZE TABLE result");
  int64_t long_history = rows_to_claim(6, 4);
  int64_t long_history_one = rows_to_claim(6, 1);
  std::cout << "rows read to claim 4 (1): new host " << fresh << " (" << fresh_one
            << "), host of 3,000 results " << long_history << " (" << long_history_one << ")\n";
  EXPECT_LE(long_history, fresh + 8) << "the claim read the host's history";
  EXPECT_LE(long_history_one, fresh_one + 2) << "the one-claim statement read the host's history";
}

// A group's read of its hosts' results in progress reads those hosts' rows only, however
// many are in progress elsewhere (res_host, not every IN_PROGRESS row per host).
TEST_F(SchedulerWrites, GroupInProgressReadReadsOnlyItsHostsRows) {
  auto rows_to_read = [&](const std::vector<int64_t>& hosts) {
    return db_->transaction([&](Database& d) {
      int64_t before = testing::rows_read(d);
      int64_t overhead = testing::rows_read(d) - before;
      before = testing::rows_read(d);
      auto read = fetch_in_progress_results_at_hosts(d, hosts);
      EXPECT_EQ(read.size(), hosts.size());
      return testing::rows_read(d) - before - overhead;
    });
  };
  std::vector<int64_t> ids = add_unsent(4);
  for (size_t k = 0; k < ids.size(); ++k) ASSERT_TRUE(claim(*db_, ids[k], 5 + static_cast<int64_t>(k % 2)));
  int64_t alone = rows_to_read({5, 6});
  // A queue as a project has one: most rows unsent (host 0), a few hundred in progress.
  exec(*db_,
       "INSERT INTO result (workunitid, appid, name, server_state, hostid, xml_doc_in, xml_doc_out) "
       "SELECT 1, 1, CONCAT('queued_', seq), 2, 0, '', '' FROM seq_1_to_20000");
  exec(*db_,
       "INSERT INTO result (workunitid, appid, name, server_state, hostid, xml_doc_in, xml_doc_out) "
       "SELECT 1, 1, CONCAT('elsewhere_', seq), 4, 100 + seq % 50, '', '' FROM seq_1_to_300");
  query(*db_, "ANALYZE TABLE result");
  int64_t crowded = rows_to_read({5, 6});
  std::cout << "rows read for two hosts' results in progress: " << alone
            << ", with 20,000 queued and 300 in progress elsewhere " << crowded << "\n";
  EXPECT_LE(crowded, alone + 4) << "the read walked other hosts' results";
  EXPECT_EQ(fetch_in_progress_results_at_hosts(*db_, {5})[5].size(), 2u);
}

TEST_F(SchedulerWrites, ReportCountsOnceOnlyForItsHostWhileInProgress) {
  std::vector<int64_t> ids = add_unsent(1);
  std::string name = fetch_result(*db_, ids[0])->name;
  ResultReport report;
  report.cpu_time = 12;
  report.xml_doc_out = "<file_info/>";
  auto report_as = [&](int64_t host, int64_t now) {
    return db_->transaction(
        [&](Database& d) { return mark_result_reported_by_name(d, name, host, now, report); });
  };
  EXPECT_FALSE(report_as(5, kNow)) << "an UNSENT result was taken as reported";
  ASSERT_TRUE(claim(*db_, ids[0], 5));
  EXPECT_FALSE(report_as(6, kNow + 10)) << "another host's report was taken";
  EXPECT_FALSE(db_->transaction(
      [&](Database& d) { return mark_result_reported_by_name(d, "no_such_result", 5, kNow, report); }));
  EXPECT_TRUE(report_as(5, kNow + 20));
  EXPECT_FALSE(report_as(5, kNow + 30)) << "a duplicate report changed the result again";
  auto row = fetch_result(*db_, ids[0]);
  EXPECT_EQ(row->server_state, ServerState::Over);
  EXPECT_EQ(row->outcome, Outcome::Success);
  EXPECT_EQ(row->received_time, kNow + 20);
  EXPECT_EQ(row->cpu_time, 12);
  EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", workunit_of(ids[0])),
            kNow + 20);
}

// Issue 13 item 10: a late report (the result timed out, its workunit is still open) is
// taken, as BOINC takes it; the report's WHERE clause is result_acceptance's rule written
// out, and here the two are compared over every state that matters.
TEST_F(SchedulerWrites, ReportTakesExactlyWhatResultAcceptanceTakes) {
  struct Case {
    ServerState state;
    Outcome outcome;
    int64_t canonical;
    int error_mask;
    AssimilateState assimilate;
  };
  std::vector<Case> cases;
  for (ServerState st : {ServerState::Unsent, ServerState::InProgress, ServerState::Over}) {
    for (Outcome o : {Outcome::Init, Outcome::Success, Outcome::ClientError, Outcome::NoReply,
                      Outcome::DidntNeed, Outcome::ValidateError, Outcome::ClientDetached}) {
      if (st != ServerState::Over && o != Outcome::Init) continue;
      cases.push_back({st, o, 0, 0, AssimilateState::Init});
      cases.push_back({st, o, 99, 0, AssimilateState::Init});
      cases.push_back({st, o, 0, kWuErrorTooManyErrorResults, AssimilateState::Ready});
      cases.push_back({st, o, 0, 0, AssimilateState::Done});
    }
  }
  std::vector<int64_t> ids = add_unsent(static_cast<int>(cases.size()));
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    exec(*db_, "UPDATE result SET server_state = ?, outcome = ?, hostid = 5 WHERE id = ?", c.state, c.outcome,
         ids[i]);
    exec(*db_,
         "UPDATE workunit SET canonical_resultid = ?, error_mask = ?, assimilate_state = ? WHERE id = ?",
         c.canonical, c.error_mask, c.assimilate, workunit_of(ids[i]));
    ResultAcceptanceView view{c.state, c.outcome, c.canonical, c.error_mask, c.assimilate};
    ResultReport report;
    report.outcome = Outcome::Success;
    report.cpu_time = 7;
    std::string name = fetch_result(*db_, ids[i])->name;
    bool taken = db_->transaction(
        [&](Database& d) { return mark_result_reported_by_name(d, name, 5, kNow + 1, report); });
    std::string what = "state " + std::to_string(static_cast<int>(c.state)) + " outcome " +
                       std::to_string(static_cast<int>(c.outcome)) + " canonical " +
                       std::to_string(c.canonical) + " error " + std::to_string(c.error_mask) +
                       " assimilate " + std::to_string(static_cast<int>(c.assimilate));
    EXPECT_EQ(taken, takes_output(view)) << what;
    auto row = fetch_result(*db_, ids[i]);
    if (taken) {
      EXPECT_EQ(row->server_state, ServerState::Over) << what;
      EXPECT_EQ(row->outcome, Outcome::Success) << what;
      EXPECT_EQ(row->received_time, kNow + 1) << what;
      EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", workunit_of(ids[i])),
                kNow + 1);
    } else {
      EXPECT_EQ(row->server_state, c.state) << what;
      EXPECT_EQ(row->outcome, c.outcome) << what;
      EXPECT_EQ(row->received_time, 0) << what;
    }
  }
  // A late report is its host's only, and once.
  std::vector<int64_t> late = add_unsent(1);
  exec(*db_, "UPDATE result SET server_state = 5, outcome = 4, hostid = 5 WHERE id = ?", late[0]);
  std::string name = fetch_result(*db_, late[0])->name;
  ResultReport error;
  error.outcome = Outcome::ClientError;
  error.client_state = ClientState::ComputeError;
  auto report_as = [&](int64_t host) {
    return db_->transaction(
        [&](Database& d) { return mark_result_reported_by_name(d, name, host, kNow, error); });
  };
  EXPECT_FALSE(report_as(6)) << "another host's late report was taken";
  EXPECT_TRUE(report_as(5));
  EXPECT_FALSE(report_as(5)) << "a late result was reported twice";
  EXPECT_EQ(fetch_result(*db_, late[0])->outcome, Outcome::ClientError);
}

// A report writes the result's MEDIUMTEXT columns: done through a temporary table (as a
// multi-table UPDATE does for all but its first table) that would be one on disk per
// report, the most expensive statement of an RPC.
TEST_F(SchedulerWrites, ReportAndClaimMakeNoTemporaryTableOnDisk) {
  std::vector<int64_t> ids = add_unsent(1);
  auto disk_tables = [&] {
    return query_int(*db_,
                     "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS "
                     "WHERE VARIABLE_NAME = 'CREATED_TMP_DISK_TABLES'");
  };
  int64_t before = disk_tables();
  ASSERT_TRUE(claim(*db_, ids[0], 5));
  ResultReport report;
  report.xml_doc_out = "<file_info><name>out</name></file_info>";
  report.stderr_out = "all fine";
  std::string name = fetch_result(*db_, ids[0])->name;
  ASSERT_TRUE(
      db_->transaction([&](Database& d) { return mark_result_reported_by_name(d, name, 5, kNow, report); }));
  EXPECT_EQ(disk_tables(), before);
}

// A request's reports are two statements however many (the workunits' lock, the write),
// and one more for their stderr (table result_stderr), none when no report carries one;
// each keeps the one-report guards: another host's, an unknown, a reported and a late
// result whose workunit is done change nothing, their stderr included (the last one
// locked, then refused by the write: a read-back tells which were taken), the others each
// get their own values, and large bytes go in as they are, with no temporary table on disk.
TEST_F(SchedulerWrites, ReportsOfARequestAreTwoStatementsAndOneForStderrAndKeepEachReportsGuards) {
  auto counter = [](Database& d, const std::string& name) {
    return query_int(
        d, "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = ?", name);
  };
  std::vector<int64_t> ids = add_unsent(4);
  std::vector<NamedReport> reports;
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_TRUE(claim(*db_, ids[i], 5));
    ResultReport rp;
    rp.outcome = i % 2 ? Outcome::ClientError : Outcome::Success;
    rp.exit_status = static_cast<int>(i);
    rp.cpu_time = 10.5 + static_cast<double>(i);
    rp.xml_doc_out = "<file_info><name>out" + std::to_string(i) + "</name></file_info>";
    rp.stderr_out = std::string(200'000 + i, static_cast<char>('a' + i));
    rp.stderr_out[7] = '\0';
    rp.stderr_out[8] = '"';
    reports.push_back({fetch_result(*db_, ids[i])->name, rp});
  }
  std::vector<std::string> names;
  for (const auto& r : reports) names.push_back(r.name);
  int64_t statements = 0, disk_tables = 0;
  std::vector<std::string> taken = db_->transaction([&](Database& d) {
    int64_t disk_before = counter(d, "CREATED_TMP_DISK_TABLES");
    int64_t before = counter(d, "COM_STMT_EXECUTE");
    auto out = mark_results_reported_by_name(d, reports, 5, kNow + 7);
    statements = counter(d, "COM_STMT_EXECUTE") - before - 1;  // less the counter's own read
    disk_tables = counter(d, "CREATED_TMP_DISK_TABLES") - disk_before;
    return out;
  });
  EXPECT_EQ(taken, names);
  EXPECT_EQ(statements, 3) << "four reports with stderr took " << statements << " statements";
  EXPECT_EQ(disk_tables, 0);
  for (size_t i = 0; i < ids.size(); ++i) {
    auto row = fetch_result(*db_, ids[i]);
    EXPECT_EQ(row->server_state, ServerState::Over);
    EXPECT_EQ(row->outcome, reports[i].report.outcome);
    EXPECT_EQ(row->exit_status, static_cast<int>(i));
    EXPECT_EQ(row->cpu_time, reports[i].report.cpu_time);
    EXPECT_EQ(row->received_time, kNow + 7);
    EXPECT_EQ(row->xml_doc_out, reports[i].report.xml_doc_out);
    EXPECT_EQ(fetch_result_stderr(*db_, ids[i]), reports[i].report.stderr_out)
        << "stderr of report " << i << " changed";
    EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", workunit_of(ids[i])),
              kNow + 7);
  }

  std::vector<int64_t> more = add_unsent(4);
  ASSERT_TRUE(claim(*db_, more[0], 5));
  ASSERT_TRUE(claim(*db_, more[1], 6));  // another host's
  // Late (timed out, NO_REPLY) but its workunit has its canonical result: locked, refused.
  exec(*db_, "UPDATE result SET server_state = 5, outcome = 4, hostid = 5 WHERE id = ?", more[2]);
  exec(*db_, "UPDATE workunit SET canonical_resultid = 99 WHERE id = ?", workunit_of(more[2]));
  ASSERT_TRUE(claim(*db_, more[3], 5));
  std::vector<NamedReport> mixed;
  ResultReport refused_stderr;
  refused_stderr.stderr_out = "not stored";
  for (int64_t id : more) mixed.push_back({fetch_result(*db_, id)->name, refused_stderr});
  mixed[0].report.stderr_out = "";  // taken, no stderr
  mixed[3].report.stderr_out = "taken";
  mixed.push_back({"no_such_result", refused_stderr});
  mixed.push_back({reports[0].name, refused_stderr});  // reported above
  taken = db_->transaction([&](Database& d) { return mark_results_reported_by_name(d, mixed, 5, kNow + 8); });
  EXPECT_EQ(taken, (std::vector<std::string>{mixed[0].name, mixed[3].name}));
  EXPECT_EQ(fetch_result_stderr(*db_, ids[0]), reports[0].report.stderr_out) << "a duplicate's stderr stored";
  EXPECT_EQ(fetch_result_stderr(*db_, more[3]), "taken");
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM result_stderr"), 5) << "a refused report's stderr stored";

  // Taken reports without stderr: the two statements alone.
  std::vector<int64_t> plain = add_unsent(4);
  std::vector<NamedReport> without;
  for (int64_t id : plain) {
    ASSERT_TRUE(claim(*db_, id, 5));
    without.push_back({fetch_result(*db_, id)->name, ResultReport{}});
  }
  db_->transaction([&](Database& d) {
    int64_t before = counter(d, "COM_STMT_EXECUTE");
    EXPECT_EQ(mark_results_reported_by_name(d, without, 5, kNow + 9).size(), 4u);
    statements = counter(d, "COM_STMT_EXECUTE") - before - 1;
  });
  EXPECT_EQ(statements, 2) << "four reports without stderr took " << statements << " statements";
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM result_stderr"), 5);
  EXPECT_EQ(fetch_result(*db_, more[1])->server_state, ServerState::InProgress);
  EXPECT_EQ(fetch_result(*db_, more[2])->received_time, 0);
  EXPECT_EQ(fetch_result(*db_, ids[0])->received_time, kNow + 7);
  EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", workunit_of(more[2])),
            9999999);
  std::vector<NamedReport> twice{mixed[0], mixed[0]};
  EXPECT_THROW(
      db_->transaction([&](Database& d) { return mark_results_reported_by_name(d, twice, 5, kNow); }),
      std::invalid_argument);
}

// The scheduler reads its host row and locks its reports' workunits in one statement: the
// host row, then each workunit whose result is this host's and takes a report, the result
// rows left unlocked (locked only by the write, after their workunits).
TEST_F(SchedulerWrites, HostReadLocksTheReportedWorkunitsInTheSameStatement) {
  UserRow u;
  u.name = "volunteer";
  u.authenticator = "key_host_read";
  HostRow h;
  h.userid = insert_user(*db_, u);
  h.host_cpid = "cpid";
  int64_t host = insert_host(*db_, h);
  std::vector<int64_t> ids = add_unsent(3);
  ASSERT_TRUE(claim(*db_, ids[0], host));
  ASSERT_TRUE(claim(*db_, ids[1], host));
  ASSERT_TRUE(claim(*db_, ids[2], host + 1));  // another host's
  std::vector<std::string> names;
  for (int64_t id : ids) names.push_back(fetch_result(*db_, id)->name);
  names.push_back("no_such_result");
  std::vector<NamedReport> reports;
  for (const auto& name : names) reports.push_back({name, ResultReport{}});
  int64_t statements = 0;
  std::vector<std::string> taken = db_->transaction([&](Database& d) {
    int64_t before = query_int(d,
                               "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE "
                               "VARIABLE_NAME = 'COM_STMT_EXECUTE'");
    LockedHost held = lock_account_host_and_reported_workunits(d, u.authenticator, host, names).locked;
    statements = query_int(d,
                           "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE "
                           "VARIABLE_NAME = 'COM_STMT_EXECUTE'") -
                 before - 1;
    EXPECT_TRUE(held.host && held.host->id == host && held.host->host_cpid == "cpid");
    EXPECT_EQ(held.reports, (ReportLocks{{names[0], workunit_of(ids[0])}, {names[1], workunit_of(ids[1])}}));
    EXPECT_TRUE(locked("host", host));
    EXPECT_TRUE(locked("workunit", workunit_of(ids[0])));
    EXPECT_TRUE(locked("workunit", workunit_of(ids[1])));
    EXPECT_FALSE(locked("workunit", workunit_of(ids[2])));
    EXPECT_FALSE(locked("result", ids[0])) << "the result row was locked before its workunit's write";
    return write_locked_reports(d, reports, held.reports, host, kNow + 3);
  });
  EXPECT_EQ(statements, 1);
  EXPECT_EQ(taken, (std::vector<std::string>{names[0], names[1]}));
  EXPECT_EQ(fetch_result(*db_, ids[2])->server_state, ServerState::InProgress);
  LockedHost none = db_->transaction([&](Database& d) {
    return lock_account_host_and_reported_workunits(d, u.authenticator, host + 9, names).locked;
  });
  EXPECT_FALSE(none.host);
  EXPECT_TRUE(none.reports.empty());
}

// A request naming its host reads its account in the host's statement: the account read,
// not locked (another host of the account is not held up); the host and the reports'
// workunits locked as above; an unknown account reads and locks no host.
TEST_F(SchedulerWrites, AccountIsReadUnlockedInTheHostsStatement) {
  UserRow u;
  u.name = "volunteer";
  u.authenticator = "key_0123";
  u.total_credit = 12.5;
  int64_t user = insert_user(*db_, u);
  HostRow h;
  h.userid = user;
  h.host_cpid = "cpid";
  int64_t host = insert_host(*db_, h);
  std::vector<int64_t> ids = add_unsent(2);
  ASSERT_TRUE(claim(*db_, ids[0], host));
  ASSERT_TRUE(claim(*db_, ids[1], host + 1));  // another host's
  std::vector<std::string> names{fetch_result(*db_, ids[0])->name, fetch_result(*db_, ids[1])->name};
  db_->transaction([&](Database& d) {
    int64_t before = executions(d);
    AccountAndHost read = lock_account_host_and_reported_workunits(d, "key_0123", host, names);
    EXPECT_EQ(executions(d) - before - 1, 1);
    EXPECT_TRUE(read.user && read.user->id == user && read.user->name == "volunteer" &&
                read.user->authenticator == "key_0123" && read.user->total_credit == 12.5);
    EXPECT_TRUE(read.locked.host && read.locked.host->id == host && read.locked.host->host_cpid == "cpid");
    EXPECT_EQ(read.locked.reports, (ReportLocks{{names[0], workunit_of(ids[0])}}));
    EXPECT_FALSE(locked("user", user)) << "the account's row was locked";
    EXPECT_TRUE(locked("host", host));
    EXPECT_TRUE(locked("workunit", workunit_of(ids[0])));
    EXPECT_FALSE(locked("workunit", workunit_of(ids[1])));
    EXPECT_FALSE(locked("result", ids[0]));
    return 0;
  });
  db_->transaction([&](Database& d) {
    AccountAndHost read = lock_account_host_and_reported_workunits(d, "key_0123", host, {});
    EXPECT_TRUE(read.user && read.locked.host && read.locked.reports.empty());
    EXPECT_TRUE(locked("host", host));
    AccountAndHost other = lock_account_host_and_reported_workunits(d, "key_0123", host + 9, names);
    EXPECT_TRUE(other.user && !other.locked.host && other.locked.reports.empty());
    return 0;
  });
  db_->transaction([&](Database& d) {
    AccountAndHost read = lock_account_host_and_reported_workunits(d, "wrong_key", host, names);
    EXPECT_FALSE(read.user);
    EXPECT_FALSE(read.locked.host);
    EXPECT_TRUE(read.locked.reports.empty());
    EXPECT_FALSE(locked("host", host)) << "an unknown account locked the host it named";
    EXPECT_FALSE(locked("workunit", workunit_of(ids[0])));
    return 0;
  });
}

// A group's first statement (sched/lib/rpc/grouped_rpc.h): every member's account, host and
// reports' workunits, as each one-request statement would read them, in one statement.
TEST_F(SchedulerWrites, GroupReadsEveryAccountHostAndReportLockInOneStatement) {
  std::vector<int64_t> users, hosts;
  for (const char* key : {"key_a", "key_b"}) {
    UserRow u;
    u.name = key;
    u.authenticator = key;
    users.push_back(insert_user(*db_, u));
    HostRow h;
    h.userid = users.back();
    h.host_cpid = std::string("cpid_") + key;
    hosts.push_back(insert_host(*db_, h));
  }
  std::vector<int64_t> ids = add_unsent(3);
  ASSERT_TRUE(claim(*db_, ids[0], hosts[0]));
  ASSERT_TRUE(claim(*db_, ids[1], hosts[1]));
  ASSERT_TRUE(claim(*db_, ids[2], hosts[1]));
  auto name = [&](int k) { return fetch_result(*db_, ids[static_cast<size_t>(k)])->name; };
  std::vector<AccountHostQuery> queries{
      {"key_a", hosts[0], {name(0), name(1)}},  // its own result and another host's
      {"key_b", hosts[1], {name(1), name(2)}},
      {"key_wrong", hosts[0], {name(0)}},
      {"key_a", hosts[1], {}},  // another account's host: read, judged by the caller
  };
  db_->transaction([&](Database& d) {
    int64_t before = executions(d);
    auto read = lock_accounts_hosts_and_reported_workunits(d, queries);
    EXPECT_EQ(executions(d) - before - 1, 1);
    EXPECT_EQ(read.size(), 4u);
    if (read.size() != 4u) return 0;
    EXPECT_TRUE(read[0].user && read[0].user->id == users[0] && read[0].user->authenticator == "key_a");
    EXPECT_TRUE(read[0].locked.host && read[0].locked.host->id == hosts[0]);
    EXPECT_EQ(read[0].locked.reports, (ReportLocks{{name(0), workunit_of(ids[0])}}));
    EXPECT_TRUE(read[1].user && read[1].user->id == users[1]);
    EXPECT_EQ(read[1].locked.reports,
              (ReportLocks{{name(1), workunit_of(ids[1])}, {name(2), workunit_of(ids[2])}}));
    EXPECT_FALSE(read[2].user);
    EXPECT_FALSE(read[2].locked.host);
    EXPECT_TRUE(read[3].user && read[3].user->id == users[0]);
    EXPECT_TRUE(read[3].locked.host && read[3].locked.host->userid == users[1]);
    EXPECT_FALSE(locked("user", users[0])) << "an account's row was locked";
    EXPECT_FALSE(locked("user", users[1]));
    EXPECT_TRUE(locked("host", hosts[0]));
    EXPECT_TRUE(locked("host", hosts[1]));
    for (int64_t id : ids) EXPECT_TRUE(locked("workunit", workunit_of(id)));
    EXPECT_FALSE(locked("result", ids[0]));
    return 0;
  });
}

// A group's claims: several hosts in one statement, the two results of one workunit to two
// hosts, and each claim under its own host's guards.
TEST_F(SchedulerWrites, GroupClaimsOfSeveralHostsAreOneStatementEachUnderItsOwnGuards) {
  std::vector<int64_t> ids = add_unsent(3);
  int64_t twin = add_twin(ids[0], "twin");
  add_had_before(ids[2], 7);
  std::vector<SendClaim> claims{{ids[0], workunit_of(ids[0]), 5, 50, kNow, 3600, 7},
                                {twin, workunit_of(ids[0]), 6, 60, kNow, 3600, 7},
                                {ids[1], workunit_of(ids[1]), 6, 60, kNow, 1800, 8},
                                {ids[2], workunit_of(ids[2]), 7, 70, kNow, 3600, 7}};
  std::vector<int64_t> won = db_->transaction([&](Database& d) { return claim_unsent_results(d, claims); });
  EXPECT_EQ(won, (std::vector<int64_t>{ids[0], twin, ids[1]}));
  EXPECT_EQ(fetch_result(*db_, ids[0])->hostid, 5);
  EXPECT_EQ(fetch_result(*db_, ids[0])->userid, 50);
  EXPECT_EQ(fetch_result(*db_, twin)->hostid, 6);
  EXPECT_EQ(fetch_result(*db_, ids[1])->hostid, 6);
  EXPECT_EQ(fetch_result(*db_, ids[1])->report_deadline, kNow + 1800);
  EXPECT_EQ(fetch_result(*db_, ids[1])->app_version_id, 8);
  EXPECT_EQ(fetch_result(*db_, ids[2])->server_state, ServerState::Unsent) << "host 7 had a result of it";
  // One host's two claims of one workunit stay refused.
  std::vector<int64_t> more = add_unsent(1);
  int64_t twin2 = add_twin(more[0], "twin2");
  std::vector<SendClaim> same_host{{more[0], workunit_of(more[0]), 9, 90, kNow, 3600, 7},
                                   {twin2, workunit_of(more[0]), 9, 90, kNow, 3600, 7}};
  EXPECT_THROW(db_->transaction([&](Database& d) { return claim_unsent_results(d, same_host); }),
               std::invalid_argument);
}

// A group's reports: several hosts' in one write, each result taken only for the host it
// was sent to, whichever request names it; then their host rows in one write.
TEST_F(SchedulerWrites, GroupReportsAndHostRowsAreOneWriteEachForItsOwnHost) {
  std::vector<int64_t> hosts;
  for (int k = 0; k < 2; ++k) {
    HostRow h;
    h.userid = 1;
    h.rpc_seqno = 10;
    h.total_credit = 3.5;
    hosts.push_back(insert_host(*db_, h));
  }
  std::vector<int64_t> ids = add_unsent(1);
  int64_t twin = add_twin(ids[0], "twin");
  ASSERT_TRUE(claim(*db_, ids[0], hosts[0]));
  ASSERT_TRUE(claim(*db_, twin, hosts[1]));
  std::string mine = fetch_result(*db_, ids[0])->name;
  auto in_progress = fetch_in_progress_results_at_hosts(*db_, {hosts[0], hosts[1], 999});
  EXPECT_EQ(in_progress.size(), 3u);
  EXPECT_EQ(in_progress[hosts[0]].size(), 1u);
  EXPECT_EQ(in_progress[hosts[1]].size(), 1u);
  EXPECT_TRUE(in_progress[999].empty());

  ResultReport error;
  error.outcome = Outcome::ClientError;
  error.client_state = ClientState::ComputeError;
  error.exit_status = 1;
  error.stderr_out = "failed";
  std::vector<NamedReport> first{{mine, error}, {"twin", error}};  // the twin is not its own
  std::vector<NamedReport> second{{"twin", error}};
  std::vector<std::vector<std::string>> taken;
  db_->transaction([&](Database& d) {
    ReportLocks first_locks = lock_workunits_of_reportable(d, {mine, "twin"}, hosts[0]);
    ReportLocks second_locks = lock_workunits_of_reportable(d, {"twin"}, hosts[1]);
    EXPECT_EQ(first_locks.size(), 1u);
    taken = write_locked_reports_of_hosts(
        d, {{hosts[0], &first, &first_locks}, {hosts[1], &second, &second_locks}}, kNow);
    HostRow a = *fetch_host(d, hosts[0]), b = *fetch_host(d, hosts[1]);
    a.rpc_seqno = 12;
    a.os_name = "Linux";
    a.max_results_day = 4;
    b.rpc_seqno = 3;  // lower than stored: kept
    b.p_model = "model \"ü\"";
    update_hosts(d, {{a, 2}, {b, 0}}, kNow);
    return 0;
  });
  EXPECT_EQ(taken, (std::vector<std::vector<std::string>>{{mine}, {"twin"}}));
  for (int64_t id : {ids[0], twin}) {
    auto row = fetch_result(*db_, id);
    EXPECT_EQ(row->server_state, ServerState::Over);
    EXPECT_EQ(row->outcome, Outcome::ClientError);
    EXPECT_EQ(fetch_result_stderr(*db_, id), "failed");
  }
  auto a = fetch_host(*db_, hosts[0]), b = fetch_host(*db_, hosts[1]);
  EXPECT_EQ(a->rpc_seqno, 12);
  EXPECT_EQ(a->os_name, "Linux");
  EXPECT_EQ(a->max_results_day, 4);
  EXPECT_EQ(a->nresults_today, 2);
  EXPECT_EQ(a->total_credit, 3.5) << "credit is the validator's";
  EXPECT_EQ(b->rpc_seqno, 10);
  EXPECT_EQ(b->p_model, "model \"ü\"");
  EXPECT_EQ(b->nresults_today, 0);
}

TEST_F(SchedulerWrites, ResendRefreshesOnlyAResultStillInProgressAtThatHost) {
  std::vector<int64_t> ids = add_unsent(1);
  int64_t wu = workunit_of(ids[0]);
  EXPECT_FALSE(
      db_->transaction([&](Database& d) { return refresh_sent_result(d, ids[0], wu, 5, kNow, 100); }));
  ASSERT_TRUE(claim(*db_, ids[0], 5));
  EXPECT_FALSE(
      db_->transaction([&](Database& d) { return refresh_sent_result(d, ids[0], wu, 6, kNow, 100); }));
  EXPECT_TRUE(
      db_->transaction([&](Database& d) { return refresh_sent_result(d, ids[0], wu, 5, kNow + 50, 100); }));
  auto row = fetch_result(*db_, ids[0]);
  EXPECT_EQ(row->sent_time, kNow + 50);
  EXPECT_EQ(row->report_deadline, kNow + 150);
  EXPECT_EQ(query_int(*db_, "SELECT transition_time FROM workunit WHERE id = ?", wu), kNow + 150);
  exec(*db_, "UPDATE result SET server_state = 5 WHERE id = ?", ids[0]);  // timed out meanwhile
  EXPECT_FALSE(
      db_->transaction([&](Database& d) { return refresh_sent_result(d, ids[0], wu, 5, kNow + 60, 100); }));
  EXPECT_EQ(fetch_result(*db_, ids[0])->server_state, ServerState::Over);
}

// While another transaction holds the result row, the claim waits for it holding the
// workunit row already: it took the workunit first, as the transitioner does.
TEST_F(SchedulerWrites, ClaimLocksTheWorkunitBeforeTheResult) {
  std::vector<int64_t> ids = add_unsent(1);
  int64_t wu = workunit_of(ids[0]);
  auto holder = tdb_.open();
  std::atomic<bool> claimed{false};
  std::thread claimer;
  holder->transaction([&](Database& h) {
    query_int(h, "SELECT id FROM result WHERE id = ? FOR UPDATE", ids[0]);
    SendClaim c{ids[0], wu, 5, 1, kNow, 3600, 7};
    claimer = std::thread([&, c] {
      auto db = tdb_.open();
      claimed = db->transaction([&](Database& d) { return claim_unsent_result(d, c); });
    });
    // The holder keeps the result: the claim cannot finish, so whoever locks the workunit
    // meanwhile is the claim, waiting for the result with the workunit in hand.
    EXPECT_TRUE(becomes_locked("workunit", wu))
        << "the claim waits for the result without holding its workunit";
    EXPECT_FALSE(claimed);
  });
  claimer.join();  // the holder committed: the claim goes through
  EXPECT_TRUE(claimed);
  EXPECT_EQ(fetch_result(*db_, ids[0])->hostid, 5);
}

TEST_F(SchedulerWrites, ReportLocksTheWorkunitBeforeTheResult) {
  std::vector<int64_t> ids = add_unsent(1);
  int64_t wu = workunit_of(ids[0]);
  ASSERT_TRUE(claim(*db_, ids[0], 5));
  std::string name = fetch_result(*db_, ids[0])->name;
  auto holder = tdb_.open();
  std::atomic<bool> reported{false};
  std::thread reporter;
  holder->transaction([&](Database& h) {
    query_int(h, "SELECT id FROM result WHERE id = ? FOR UPDATE", ids[0]);
    reporter = std::thread([&] {
      auto db = tdb_.open();
      reported = db->transaction(
          [&](Database& d) { return mark_result_reported_by_name(d, name, 5, kNow + 5, ResultReport{}); });
    });
    EXPECT_TRUE(becomes_locked("workunit", wu))
        << "the report waits for the result without holding its workunit";
    EXPECT_FALSE(reported);
  });
  reporter.join();
  EXPECT_TRUE(reported);
  EXPECT_EQ(fetch_result(*db_, ids[0])->server_state, ServerState::Over);
}

}  // namespace
}  // namespace tharsis::scheduler_writes_test
