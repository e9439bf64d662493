// The four status pages as a visitor sees them: CGI programs under a real Apache on
// 127.0.0.1, reading a populated MariaDB with the read-only account, loaded in headless
// Chromium. Every number checked on a page is read back from the database here, from the
// DOM Chromium rendered (tests/support/status_pages.h); screenshots go to a fresh
// /tmp/tharsis-status-pages-* directory (kept for a human to look at, never committed).
// Skipped only when Chromium is absent. status_pages_live_test.cpp loads the same pages
// during a running demo.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "daemons/census/lib/census_pass.h"
#include "db/heartbeat_store.h"
#include "db/sql.h"
#include "db/states.h"
#include "lib/text_file.h"
#include "lib/web/page.h"
#include "tests/support/headless_chromium.h"
#include "tests/support/status_pages.h"
#include "tests/support/test_web_server.h"

namespace tharsis {
namespace {

using testing::node_text;

const std::string kHostile = "<script>alert('x')</script> & \"q\"";

class StatusPagesBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::chromium_available()) {
      GTEST_SKIP() << "Chromium is not installed (" << testing::kChromium
                   << " missing; Debian package 'chromium'): the browser test of the status pages is skipped";
    }
    db_ = project_.open();
    populate();
    server_ = std::make_unique<testing::TestWebServer>(project_);
    // The pages read with the read-only account, and link to where this server really is.
    ProjectConfig config = project_.config();
    read_only_ = testing::configure_status_pages(config, server_->url(""), /*cache_off=*/false);
    ASSERT_TRUE(
        write_text_file(config.project_dir + "/config.xml", render_project_config(config), 0644).ok());
  }

  void populate() {
    Database& db = *db_;
    now_ = static_cast<int64_t>(std::time(nullptr));
    for (int i = 1; i <= 12; ++i) {
      const std::string name = i == 3 ? "vol " + kHostile : "vol" + std::to_string(i);
      // Credits chosen so that total and recent order differ, with a tie at the top of total.
      const double total = i == 12 ? 110.0 : 10.0 * i;
      exec(db, "INSERT INTO user (name, authenticator, total_credit, expavg_credit) VALUES (?,?,?,?)", name,
           "auth" + std::to_string(i), total, static_cast<double>((i * 7) % 12) + 0.25);
    }
    for (int i = 1; i <= 15; ++i) {
      const std::string name = i == 2 ? "host " + kHostile : "host" + std::to_string(i);
      exec(db,
           "INSERT INTO host (userid, rpc_time, total_credit, expavg_credit, domain_name, platform_name) "
           "VALUES (?,?,?,?,?,?)",
           1 + i % 12, now_ - 60 * i, 3.5 * i, static_cast<double>((i * 5) % 15), name,
           "x86_64-pc-linux-gnu");
    }
    const int64_t app = project_.appid();
    auto add_workunit = [&](const std::string& name) {
      exec(db,
           "INSERT INTO workunit (create_time, appid, name, xml_doc, transition_time) VALUES (?,?,?,'',?)",
           now_, app, name, now_ + 3600);
      return last_insert_id(db);
    };
    // Results in several (server_state, outcome) pairs.
    const int64_t plain = add_workunit("plain");
    const int pairs[][3] = {{2, 0, 4}, {4, 0, 3}, {5, 1, 5}, {5, 3, 2}, {5, 4, 1}};
    int n = 0;
    for (const auto& pair : pairs) {
      for (int i = 0; i < pair[2]; ++i) {
        exec(db,
             "INSERT INTO result (workunitid, appid, name, server_state, outcome, xml_doc_in, xml_doc_out) "
             "VALUES (?,?,?,?,?,'','')",
             plain, app, "r" + std::to_string(++n), pair[0], pair[1]);
      }
    }
    // Graph "g": a, b (freed) -> c (finished) -> d (running); c, d -> e (unscheduled); f fatal.
    exec(db, "INSERT INTO graph (name, state, expression) VALUES (?, ?, '')", "g " + kHostile,
         GraphState::Failed);
    graph_ = last_insert_id(db);
    struct Op {
      const char* name;
      int depth;
      OperandState state;
      int64_t bytes;
      int64_t finished_ago;  // 0: not assimilated
    };
    const Op ops[] = {{"a", 0, OperandState::Freed, 1000, 300},   {"b", 0, OperandState::Freed, 2000, 200},
                      {"c", 1, OperandState::Finished, 500, 100}, {"d", 1, OperandState::Running, 700, 0},
                      {"e", 2, OperandState::Unscheduled, 50, 0}, {"f", 0, OperandState::Fatal, 10, 0}};
    std::map<std::string, int64_t> id;
    for (const Op& op : ops) {
      const int64_t wu = add_workunit(std::string("g_") + op.name);
      // a and b were freed when c finished.
      const int64_t state_time = op.state == OperandState::Freed ? now_ - 100 : now_ - op.finished_ago;
      exec(db,
           "INSERT INTO operand (graph_id, name, workunitid, state, state_time, depth, output_nbytes, spec) "
           "VALUES (?,?,?,?,?,?,?,'')",
           graph_, std::string(op.name) + "[0]", wu, op.state, state_time, op.depth, op.bytes);
      id[op.name] = last_insert_id(db);
      if (op.finished_ago > 0) {
        exec(db, "INSERT INTO assimilation (workunitid, time) VALUES (?,?)", wu, now_ - op.finished_ago);
      }
    }
    int input = 0;
    for (const auto& [pred, succ] : {std::pair{"a", "c"}, {"b", "c"}, {"c", "d"}, {"c", "e"}, {"d", "e"}}) {
      exec(db, "INSERT INTO operand_dependency (predecessor_id, successor_id, input_index) VALUES (?,?,?)",
           id[pred], id[succ], input++);
    }
    exec(db, "INSERT INTO graph (name, state, expression) VALUES ('done', ?, '')", GraphState::Done);
    const int64_t done = last_insert_id(db);
    for (int i = 0; i < 3; ++i) {
      exec(db, "INSERT INTO operand (graph_id, name, workunitid, state, spec) VALUES (?,?,?,?,'')", done,
           "x[" + std::to_string(i) + "]", add_workunit("done_" + std::to_string(i)), OperandState::Freed);
    }
    // Reclustering estimates of the app over time, and tasks waiting to be clustered.
    const double alphas[] = {0.05, 0.04, 0.031, 0.0275};
    for (int i = 0; i < 4; ++i) {
      exec(db,
           "INSERT INTO failure_stat (appid, time, jobs, tasks, alpha, beta, cluster_size, model) "
           "VALUES (?,?,?,?,?,?,?,'TFM')",
           app, now_ - 400 + 100 * i, 10 * (i + 1), 60 * (i + 1), alphas[i], 0.3 - 0.05 * i, 4 + i);
    }
    for (int i = 0; i < 30; ++i) {
      exec(db, "INSERT INTO cluster_task (task_key, appid) VALUES (?,?)", "t" + std::to_string(i), app);
    }
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<testing::TestWebServer> server_;
  DbConfig read_only_;
  int64_t now_ = 0;
  int64_t graph_ = 0;
};

TEST_F(StatusPagesBrowser, ReadOnlyAccountCanReadButNotWrite) {
  auto db = Database::open(read_only_);
  EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM user"), 12);
  EXPECT_THROW(exec(*db, "UPDATE user SET name = 'x'"), DbError);
  EXPECT_THROW(exec(*db, "DELETE FROM result"), DbError);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM result"), 15);
}

TEST_F(StatusPagesBrowser, EachPageShowsTheDatabaseNumbers) {
  Database& db = *db_;
  testing::StatusPageBrowser browser(server_->url("test_cgi/"));
  pugi::xml_document doc;

  // Server status: every (server_state, outcome) row and the total.
  ASSERT_TRUE(browser.load("server_status", "server_status", doc));
  const testing::ShownServerStatus status = testing::read_server_status_html(doc);
  testing::expect_server_status_matches_db(status, db);
  EXPECT_EQ(status.results.size(), 5u);

  // Graph list: per-state operand counts and progress of each graph; the name escaped.
  ASSERT_TRUE(browser.load("graphs", "graphs", doc));
  const auto graphs = testing::read_graph_list(doc);
  testing::expect_graph_list_matches_db(graphs, db);
  ASSERT_EQ(graphs.count(graph_), 1u);
  EXPECT_EQ(graphs.at(graph_).name, "g " + kHostile);
  EXPECT_EQ(graphs.at(graph_).percent, "50%");

  // One graph: its DAG (a node per operand, coloured by state), counts and staged bytes.
  ASSERT_TRUE(browser.load("graphs?id=" + std::to_string(graph_), "graph_detail", doc));
  const testing::ShownGraphDetail detail = testing::read_graph_detail(doc);
  testing::expect_graph_detail_matches_db(detail, db, graph_);
  EXPECT_EQ(detail.nodes.size(), 6u);
  EXPECT_EQ(detail.edges, 5u);

  // Reclustering: the latest estimate's k, α and β, the tasks waiting and the M(k) curve.
  ASSERT_TRUE(browser.load("reclustering", "reclustering", doc));
  const auto reclustering = testing::read_reclustering(doc);
  testing::expect_reclustering_matches_db(reclustering, db);
  ASSERT_EQ(reclustering.count("example"), 1u);
  EXPECT_EQ(reclustering.at("example").k, "7");

  // Volunteers: counts, and the top lists in the database's order with their credits.
  ASSERT_TRUE(browser.load("volunteers", "volunteers", doc));
  const testing::ShownVolunteers volunteers = testing::read_volunteers(doc);
  testing::expect_volunteers_match_db(volunteers, db);
  EXPECT_EQ(volunteers.top_users_total.size(), 10u);
  EXPECT_EQ(volunteers.hosts.size(), 15u);
  EXPECT_NE(node_text(doc).find("vol " + kHostile), std::string::npos);
  EXPECT_NE(node_text(doc).find("host " + kHostile), std::string::npos);
}

TEST_F(StatusPagesBrowser, ServerStatusShowsTheCensusSnapshotWithItsTime) {
  testing::StatusPageBrowser browser(server_->url("test_cgi/"));
  pugi::xml_document doc;
  // No snapshot yet: counted live, and the page says so.
  ASSERT_TRUE(browser.load("server_status", "server_status_live", doc));
  const testing::ShownServerStatus live = testing::read_server_status_html(doc);
  EXPECT_EQ(live.source, "live");
  testing::expect_server_status_matches_db(live, *db_);
  EXPECT_NE(testing::text_at(doc, "//p[@class='census live']").find("Counted live"), std::string::npos);

  // The census counts (as its daemon would, heartbeat included); then more results arrive.
  const int64_t taken_at = static_cast<int64_t>(std::time(nullptr));
  CensusPass(60).take_snapshot(*db_, taken_at);
  record_heartbeat(*db_, HeartbeatRow{"census", Shard{}, "h", 1, taken_at, taken_at, 1});
  exec(*db_,
       "INSERT INTO result (workunitid, appid, name, server_state, outcome, xml_doc_in, xml_doc_out) "
       "VALUES (1, ?, 'after_census', 2, 0, '', '')",
       project_.appid());

  // The page shows the snapshot's numbers and time, read with the read-only account.
  ASSERT_TRUE(browser.load("server_status", "server_status_census", doc));
  const testing::ShownServerStatus census = testing::read_server_status_html(doc);
  testing::expect_server_status_shows_census(census, *db_);
  EXPECT_EQ(census.as_of, taken_at);
  EXPECT_EQ(census.total + 1, query_int(*db_, "SELECT COUNT(*) FROM result"));
  const std::string note = testing::text_at(doc, "//p[@class='census']");
  EXPECT_NE(note.find("Counted by the census daemon at " + format_utc_time(taken_at)), std::string::npos)
      << note;
}

}  // namespace
}  // namespace tharsis
