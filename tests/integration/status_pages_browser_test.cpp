// The four status pages as a visitor sees them: CGI programs under a real Apache on
// 127.0.0.1, reading a populated MariaDB with the read-only account, loaded in headless
// Chromium. Every number checked on a page is read back from the database here, from the
// DOM Chromium rendered; screenshots go to a fresh /tmp/tharsis-status-pages-* directory
// (kept for a human to look at, never committed). Skipped only when Chromium is absent.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "daemons/census/lib/census_pass.h"
#include "db/heartbeat_store.h"
#include "db/schema_loader.h"
#include "db/states.h"
#include "lib/text_file.h"
#include "lib/web/graph_progress.h"
#include "lib/web/page.h"
#include "lib/web/server_status_render.h"
#include "lib/web/status_model.h"
#include "tests/support/headless_chromium.h"
#include "tests/support/test_web_server.h"
#include "tools/lib/make_project.h"

namespace tharsis {
namespace {

using testing::node_text;

const std::string kHostile = "<script>alert('x')</script> & \"q\"";

// A database DOUBLE as the pages print it: fixed, with `decimals` digits.
std::string fixed(long double value, int decimals) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, static_cast<double>(value));
  return buffer;
}

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
    config.other["web_db_user"] = read_only_user_name(config.db.name);
    config.other["web_db_passwd"] = "statuspages42";
    create_read_only_user(testing::shared_server_admin(), config.db.name, config.other["web_db_user"],
                          config.other["web_db_passwd"]);
    config.master_url = server_->url("test/");
    config.cgi_url = server_->url("test_cgi/");
    ASSERT_TRUE(
        write_text_file(config.project_dir + "/config.xml", render_project_config(config), 0644).ok());
    read_only_ = config.db;
    read_only_.user = config.other["web_db_user"];
    read_only_.password = config.other["web_db_passwd"];
  }

  void TearDown() override {
    if (!screenshots_.empty()) std::cout << "screenshots of the status pages: " << screenshots_ << "\n";
  }

  void populate() {
    Database& db = *db_;
    now_ = static_cast<int64_t>(std::time(nullptr));
    for (int i = 1; i <= 12; ++i) {
      const std::string name = i == 3 ? "vol " + kHostile : "vol" + std::to_string(i);
      // Credits chosen so that total and recent order differ, with a tie at the top of total.
      const double total = i == 12 ? 110.0 : 10.0 * i;
      db.exec("INSERT INTO user (name, authenticator, total_credit, expavg_credit) VALUES (?,?,?,?)", name,
              "auth" + std::to_string(i), total, static_cast<double>((i * 7) % 12) + 0.25);
    }
    for (int i = 1; i <= 15; ++i) {
      const std::string name = i == 2 ? "host " + kHostile : "host" + std::to_string(i);
      db.exec(
          "INSERT INTO host (userid, rpc_time, total_credit, expavg_credit, domain_name, platform_name) "
          "VALUES (?,?,?,?,?,?)",
          1 + i % 12, now_ - 60 * i, 3.5 * i, static_cast<double>((i * 5) % 15), name, "x86_64-pc-linux-gnu");
    }
    const int64_t app = project_.appid();
    auto add_workunit = [&](const std::string& name) {
      db.exec("INSERT INTO workunit (create_time, appid, name, xml_doc, transition_time) VALUES (?,?,?,'',?)",
              now_, app, name, now_ + 3600);
      return db.last_insert_id();
    };
    // Results in several (server_state, outcome) pairs.
    const int64_t plain = add_workunit("plain");
    const int pairs[][3] = {{2, 0, 4}, {4, 0, 3}, {5, 1, 5}, {5, 3, 2}, {5, 4, 1}};
    int n = 0;
    for (const auto& pair : pairs) {
      for (int i = 0; i < pair[2]; ++i) {
        db.exec(
            "INSERT INTO result (workunitid, appid, name, server_state, outcome, xml_doc_in, xml_doc_out, "
            "stderr_out) VALUES (?,?,?,?,?,'','','')",
            plain, app, "r" + std::to_string(++n), pair[0], pair[1]);
      }
    }
    // Graph "g": a, b (freed) -> c (finished) -> d (running); c, d -> e (unscheduled); f fatal.
    db.exec("INSERT INTO graph (name, state, expression) VALUES (?, ?, '')", "g " + kHostile,
            GraphState::Failed);
    graph_ = db.last_insert_id();
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
      db.exec(
          "INSERT INTO operand (graph_id, name, workunitid, state, state_time, depth, output_nbytes, spec) "
          "VALUES (?,?,?,?,?,?,?,'')",
          graph_, std::string(op.name) + "[0]", wu, op.state, state_time, op.depth, op.bytes);
      id[op.name] = db.last_insert_id();
      if (op.finished_ago > 0) {
        db.exec("INSERT INTO assimilation (workunitid, time) VALUES (?,?)", wu, now_ - op.finished_ago);
      }
    }
    int input = 0;
    for (const auto& [pred, succ] : {std::pair{"a", "c"}, {"b", "c"}, {"c", "d"}, {"c", "e"}, {"d", "e"}}) {
      db.exec("INSERT INTO operand_dependency (predecessor_id, successor_id, input_index) VALUES (?,?,?)",
              id[pred], id[succ], input++);
    }
    db.exec("INSERT INTO graph (name, state, expression) VALUES ('done', ?, '')", GraphState::Done);
    const int64_t done = db.last_insert_id();
    for (int i = 0; i < 3; ++i) {
      db.exec("INSERT INTO operand (graph_id, name, workunitid, state, spec) VALUES (?,?,?,?,'')", done,
              "x[" + std::to_string(i) + "]", add_workunit("done_" + std::to_string(i)), OperandState::Freed);
    }
    // Reclustering estimates of the app over time, and tasks waiting to be clustered.
    const double alphas[] = {0.05, 0.04, 0.031, 0.0275};
    for (int i = 0; i < 4; ++i) {
      db.exec(
          "INSERT INTO failure_stat (appid, time, jobs, tasks, alpha, beta, cluster_size, model) "
          "VALUES (?,?,?,?,?,?,?,'TFM')",
          app, now_ - 400 + 100 * i, 10 * (i + 1), 60 * (i + 1), alphas[i], 0.3 - 0.05 * i, 4 + i);
    }
    for (int i = 0; i < 30; ++i) {
      db.exec("INSERT INTO cluster_task (task_key, appid) VALUES (?,?)", "t" + std::to_string(i), app);
    }
  }

  // Loads a page in Chromium and parses its DOM; fails the test on a load or parse error.
  bool load(const std::string& path, const std::string& shot, pugi::xml_document& doc) {
    const testing::BrowserPage page =
        testing::load_in_chromium(server_->url("test_cgi/" + path), screenshots_ + "/" + shot + ".png");
    EXPECT_TRUE(page.error.empty()) << page.error;
    if (!page.error.empty()) return false;
    // Escaping: a hostile name never becomes an element, on any page.
    EXPECT_EQ(page.dom.find("<script"), std::string::npos) << path;
    std::string error;
    EXPECT_TRUE(testing::parse_dom(page.dom, doc, error)) << path << ": " << error << "\n" << page.dom;
    EXPECT_TRUE(std::filesystem::file_size(screenshots_ + "/" + shot + ".png") > 1000) << shot;
    return error.empty();
  }

  static std::string text_at(const pugi::xml_document& doc, const std::string& xpath) {
    return node_text(doc.select_node(xpath.c_str()).node());
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<testing::TestWebServer> server_;
  DbConfig read_only_;
  std::string screenshots_;
  int64_t now_ = 0;
  int64_t graph_ = 0;
};

TEST_F(StatusPagesBrowser, ReadOnlyAccountCanReadButNotWrite) {
  auto db = Database::open(read_only_);
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM user"), 12);
  EXPECT_THROW(db->exec("UPDATE user SET name = 'x'"), DbError);
  EXPECT_THROW(db->exec("DELETE FROM result"), DbError);
  EXPECT_EQ(db_->query_int("SELECT COUNT(*) FROM result"), 15);
}

TEST_F(StatusPagesBrowser, EachPageShowsTheDatabaseNumbers) {
  Database& db = *db_;
  pugi::xml_document doc;
  char pattern[] = "/tmp/tharsis-status-pages-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  screenshots_ = pattern;

  // Server status: every (server_state, outcome) row and the total.
  ASSERT_TRUE(load("server_status", "server_status", doc));
  EXPECT_EQ(text_at(doc, "//tfoot//td"), std::to_string(db.query_int("SELECT COUNT(*) FROM result")));
  EXPECT_NE(text_at(doc, "//p[contains(@class,'banner')]").find("reachable"), std::string::npos);
  {
    auto rows = db.query("SELECT server_state, outcome, COUNT(*) FROM result GROUP BY server_state, outcome");
    size_t shown =
        doc.select_nodes("//h2[text()='Results by state']/following-sibling::table[1]/tbody/tr").size();
    size_t expected = 0;
    while (rows->next()) ++expected;
    EXPECT_EQ(shown, expected);
  }

  // Graph list: per-state operand counts and progress of each graph.
  ASSERT_TRUE(load("graphs", "graphs", doc));
  {
    auto rows = db.query("SELECT graph_id, state, COUNT(*) FROM operand GROUP BY graph_id, state");
    std::map<int64_t, int64_t> total, done;
    int checked = 0;
    while (rows->next()) {
      const int64_t graph = rows->getInt64(1);
      const int state = rows->getInt(2);
      const std::string row = "//tr[@data-graph='" + std::to_string(graph) + "']";
      // Columns: id, name, state, progress, then one per state in code order.
      EXPECT_EQ(text_at(doc, row + "/td[" + std::to_string(5 + state) + "]"),
                std::to_string(rows->getInt64(3)))
          << "graph " << graph << " state " << state;
      total[graph] += rows->getInt64(3);
      if (state == code(OperandState::Finished) || state == code(OperandState::Freed))
        done[graph] += rows->getInt64(3);
      ++checked;
    }
    EXPECT_GE(checked, 5);
    for (const auto& [graph, count] : total) {
      const std::string row = "//tr[@data-graph='" + std::to_string(graph) + "']";
      EXPECT_EQ(text_at(doc, row + "//span[@class='pct']"), std::to_string(100 * done[graph] / count) + "%");
    }
    EXPECT_EQ(text_at(doc, "//tr[@data-graph='" + std::to_string(graph_) + "']/td[2]"), "g " + kHostile);
    auto states = db.query("SELECT id, state FROM graph");
    while (states->next()) {
      EXPECT_EQ(text_at(doc, "//tr[@data-graph='" + std::to_string(states->getInt64(1)) + "']/td[3]"),
                graph_state_name(static_cast<GraphState>(states->getInt(2))));
    }
  }

  // One graph: its DAG (a node per operand, coloured by state), counts and staged bytes.
  ASSERT_TRUE(load("graphs?id=" + std::to_string(graph_), "graph_detail", doc));
  {
    auto rows = db.query(
        "SELECT state, COUNT(*), SUM(output_nbytes) FROM operand WHERE graph_id = ? GROUP BY state", graph_);
    int64_t operands = 0, staged = 0;
    while (rows->next()) {
      const auto state = static_cast<OperandState>(rows->getInt(1));
      operands += rows->getInt64(2);
      if (state == OperandState::Finished) staged += rows->getInt64(3);
      const std::string name(operand_state_name(state));
      EXPECT_EQ(text_at(doc, "//*[@id='operand-counts']/span[@data-state='" + name + "']"),
                std::to_string(rows->getInt64(2)));
      EXPECT_EQ(doc.select_nodes(("//g[@class='node'][@data-state='" + name + "']").c_str()).size(),
                static_cast<size_t>(rows->getInt64(2)));
    }
    EXPECT_EQ(doc.select_nodes("//g[@class='node']").size(), static_cast<size_t>(operands));
    EXPECT_EQ(doc.select_nodes("//line[@class='edge']").size(),
              static_cast<size_t>(db.query_int("SELECT COUNT(*) FROM operand_dependency")));
    EXPECT_EQ(text_at(doc, "//*[@id='staged-bytes']"), std::to_string(staged) + " bytes");
    EXPECT_EQ(doc.select_nodes("//g[@data-series='staged output']/polyline").size(), 1u);
  }

  // Reclustering: the latest estimate's k, α and β, and the M(k) curve.
  ASSERT_TRUE(load("reclustering", "reclustering", doc));
  {
    auto rows = db.query(
        "SELECT cluster_size, alpha, beta FROM failure_stat WHERE appid = ? ORDER BY time DESC LIMIT 1",
        project_.appid());
    ASSERT_TRUE(rows->next());
    const std::string row = "//tr[@data-app='example']";
    EXPECT_EQ(text_at(doc, row + "/td[3]"), std::to_string(rows->getInt(1)));
    EXPECT_EQ(text_at(doc, row + "/td[4]"), fixed(rows->getDouble(2), 4));
    EXPECT_EQ(text_at(doc, row + "/td[5]"), fixed(rows->getDouble(3), 4));
    const std::string note = text_at(doc, "//p[@data-app='example']");
    EXPECT_NE(
        note.find("n = " + std::to_string(db.query_int("SELECT COUNT(*) FROM cluster_task WHERE state = 0"))),
        std::string::npos)
        << note;
    EXPECT_EQ(doc.select_nodes("//g[@data-series='M(k)']/polyline").size(), 1u);
  }

  // Volunteers: counts, and the top lists in the database's order with their credits.
  ASSERT_TRUE(load("volunteers", "volunteers", doc));
  {
    EXPECT_EQ(text_at(doc, "//*[@id='user-count']"),
              std::to_string(db.query_int("SELECT COUNT(*) FROM user")));
    EXPECT_EQ(text_at(doc, "//*[@id='host-count']"),
              std::to_string(db.query_int("SELECT COUNT(*) FROM host")));
    auto users = db.query("SELECT name, total_credit FROM user ORDER BY total_credit DESC, id DESC LIMIT 10");
    int rank = 0;
    while (users->next()) {
      const std::string row = "//table[@id='top-users-total']/tbody/tr[" + std::to_string(++rank) + "]";
      EXPECT_EQ(text_at(doc, row + "/td[3]"), users->getString(1)) << rank;
      EXPECT_EQ(text_at(doc, row + "/td[4]"), fixed(users->getDouble(2), 2)) << rank;
    }
    EXPECT_EQ(rank, 10);
    auto hosts = db.query("SELECT id, expavg_credit FROM host ORDER BY expavg_credit DESC, id DESC LIMIT 10");
    rank = 0;
    while (hosts->next()) {
      const std::string row = "//table[@id='top-hosts-recent']/tbody/tr[" + std::to_string(++rank) + "]";
      EXPECT_EQ(text_at(doc, row + "/td[2]"), std::to_string(hosts->getInt64(1))) << rank;
      EXPECT_EQ(text_at(doc, row + "/td[6]"), fixed(hosts->getDouble(2), 2)) << rank;
    }
    EXPECT_EQ(doc.select_nodes("//table[@id='all-hosts']/tbody/tr").size(), 15u);
    EXPECT_NE(node_text(doc).find("vol " + kHostile), std::string::npos);
    EXPECT_NE(node_text(doc).find("host " + kHostile), std::string::npos);
  }
}

TEST_F(StatusPagesBrowser, ServerStatusShowsTheCensusSnapshotWithItsTime) {
  pugi::xml_document doc;
  char pattern[] = "/tmp/tharsis-status-pages-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  screenshots_ = pattern;
  // No snapshot yet: counted live, and the page says so.
  ASSERT_TRUE(load("server_status", "server_status_live", doc));
  EXPECT_EQ(std::string(doc.select_node("//section[@id='results']").node().attribute("data-source").value()),
            "live");
  EXPECT_NE(text_at(doc, "//p[@class='census live']").find("Counted live"), std::string::npos);

  // The census counts (as its daemon would, heartbeat included); then more results arrive.
  const int64_t taken_at = static_cast<int64_t>(std::time(nullptr));
  const CensusSnapshot snapshot = CensusPass(60).take_snapshot(*db_, taken_at);
  record_heartbeat(*db_, HeartbeatRow{"census", Shard{}, "h", 1, taken_at, taken_at, 1});
  const int64_t counted = db_->query_int("SELECT COUNT(*) FROM result");
  db_->exec(
      "INSERT INTO result (workunitid, appid, name, server_state, outcome, xml_doc_in, xml_doc_out, "
      "stderr_out) VALUES (1, ?, 'after_census', 2, 0, '', '', '')",
      project_.appid());

  // The page shows the snapshot's numbers and time, read with the read-only account.
  ASSERT_TRUE(load("server_status", "server_status_census", doc));
  const auto section = doc.select_node("//section[@id='results']").node();
  EXPECT_EQ(std::string(section.attribute("data-source").value()), "census");
  EXPECT_EQ(std::string(section.attribute("data-as-of").value()), std::to_string(taken_at));
  EXPECT_EQ(text_at(doc, "//tfoot//td"), std::to_string(counted));
  for (const auto& [key, count] : snapshot.results) {
    const std::string row = "//section[@id='results']//tbody/tr[td[1]='" + server_state_name(key.first) +
                            "' and td[2]='" + outcome_name(key.second) + "']/td[3]";
    EXPECT_EQ(text_at(doc, row), std::to_string(count)) << row;
  }
  const std::string note = text_at(doc, "//p[@class='census']");
  EXPECT_NE(note.find("Counted by the census daemon at " + format_utc_time(taken_at)), std::string::npos)
      << note;
}

}  // namespace
}  // namespace tharsis
