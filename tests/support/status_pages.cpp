// Implementation of tests/support/status_pages.h.
#include "tests/support/status_pages.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "db/census_store.h"
#include "db/schema_loader.h"
#include "db/sql.h"
#include "db/state_names.h"
#include "db/states.h"
#include "db/status_rows.h"
#include "lib/json_reader.h"
#include "lib/text_file.h"
#include "lib/web/graph_progress.h"
#include "lib/web/server_status_render.h"
#include "tests/support/headless_chromium.h"
#include "tests/support/test_database.h"
#include "tools/lib/make_project.h"

namespace tharsis::testing {
namespace {

int64_t to_int(const std::string& text) {
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    ADD_FAILURE() << "not a number on the page: '" << text << "'";
    return -1;
  }
}

// "2026-11-23 14:38:25 UTC" (lib/web/page.h's format_utc_time) back to Unix seconds;
// "never" is 0, anything else -1.
int64_t parse_utc_time(const std::string& text) {
  if (text == "never") return 0;
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%d %H:%M:%S UTC", &tm);
  if (end == nullptr || *end != '\0') return -1;
  return static_cast<int64_t>(timegm(&tm));
}

// "12 s", "3 min", ... (format_duration); only seconds are exact, which is what a fresh
// heartbeat shows.
int64_t parse_age(const std::string& text) {
  if (text == "-") return -1;
  if (text.size() > 2 && text.substr(text.size() - 2) == " s") return to_int(text.substr(0, text.size() - 2));
  return 60 * to_int(text.substr(0, text.find(' ')));
}

std::vector<ShownCreditRow> credit_rows(const pugi::xml_node& doc, const std::string& table, bool hosts,
                                        bool full) {
  std::vector<ShownCreditRow> rows;
  for (const auto& tr : doc.select_nodes(("//table[@id='" + table + "']/tbody/tr").c_str())) {
    std::vector<std::string> cells;
    for (const auto& td : tr.node().children("td")) cells.push_back(node_text(td));
    // Users: #, id, name, total, recent, hosts. Hosts: #, id, name, owner, [platform],
    // total, recent, [last contact].
    const size_t expected = hosts ? (full ? 8 : 6) : 6;
    if (cells.size() != expected) {
      ADD_FAILURE() << table << ": a row of " << cells.size() << " cells";
      continue;
    }
    ShownCreditRow row;
    row.id = to_int(cells[1]);
    row.name = cells[2];
    const size_t credit = hosts ? (full ? 5 : 4) : 3;
    if (hosts) row.owner = cells[3];
    row.total = cells[credit];
    row.recent = cells[credit + 1];
    if (hosts && full) row.last_contact = parse_utc_time(cells[7]);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

std::string fixed(double value, int decimals) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string text_at(const pugi::xml_node& doc, const std::string& xpath) {
  return node_text(doc.select_node(xpath.c_str()).node());
}

DbConfig configure_status_pages(ProjectConfig& config, const std::string& url_base, bool cache_off) {
  config.other["web_db_user"] = read_only_user_name(config.db.name);
  config.other["web_db_passwd"] = "statuspages42";
  if (cache_off) config.other["status_page_cache_seconds"] = "0";
  create_read_only_user(shared_server_admin(), config.db.name, config.other["web_db_user"],
                        config.other["web_db_passwd"]);
  config.master_url = url_base + config.name + "/";
  config.cgi_url = url_base + config.name + "_cgi/";
  DbConfig read_only = config.db;
  read_only.user = config.other["web_db_user"];
  read_only.password = config.other["web_db_passwd"];
  return read_only;
}

namespace {

// Screenshot directories of earlier runs are kept for a day, then removed here: each run
// of the suite makes a few, and /tmp would otherwise fill up run after run.
void remove_old_screenshot_directories() {
  namespace fs = std::filesystem;
  constexpr auto kKeptFor = std::chrono::hours(24);
  const std::string prefix = "tharsis-status-pages-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/tmp", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) continue;
    if (!entry.is_directory(ec) || entry.is_symlink(ec)) continue;
    auto modified = fs::last_write_time(entry.path(), ec);
    if (ec || fs::file_time_type::clock::now() - modified < kKeptFor) continue;
    fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

StatusPageBrowser::StatusPageBrowser(std::string cgi_url) : cgi_url_(std::move(cgi_url)) {
  remove_old_screenshot_directories();
  char pattern[] = "/tmp/tharsis-status-pages-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("cannot make a screenshot directory");
  screenshots_ = pattern;
}

StatusPageBrowser::~StatusPageBrowser() {
  std::cout << "screenshots of the status pages: " << screenshots_ << "\n";
}

bool StatusPageBrowser::load(const std::string& path, const std::string& shot, pugi::xml_document& doc) {
  const std::string png = screenshots_ + "/" + shot + ".png";
  const BrowserPage page = load_in_chromium(cgi_url_ + path, png);
  EXPECT_TRUE(page.error.empty()) << page.error;
  if (!page.error.empty()) return false;
  // Escaping: a name never becomes an element, on any page.
  EXPECT_EQ(page.dom.find("<script"), std::string::npos) << path;
  std::string error;
  const bool parsed = parse_dom(page.dom, doc, error);
  EXPECT_TRUE(parsed) << path << ": " << error << "\n" << page.dom;
  std::error_code ignored;
  EXPECT_GT(std::filesystem::file_size(png, ignored), 1000u) << shot;
  return parsed && page.dom.find("<script") == std::string::npos;
}

bool StatusPageBrowser::load_text(const std::string& path, const std::string& shot, std::string& text) {
  pugi::xml_document doc;
  if (!load(path, shot, doc)) return false;
  const pugi::xml_node pre = doc.select_node("//pre").node();
  EXPECT_TRUE(pre) << path << ": Chromium showed no text";
  text = node_text(pre);
  return static_cast<bool>(pre);
}

void StatusPageBrowser::load_together(std::vector<Load>& loads) {
  // A few at a time: the machine's cores are shared.
  constexpr size_t kVisitors = 3;
  std::atomic<size_t> next{0};
  std::vector<std::thread> visitors;
  for (size_t v = 0; v < std::min(kVisitors, loads.size()); ++v) {
    visitors.emplace_back([this, &loads, &next] {
      for (size_t i = next++; i < loads.size(); i = next++) {
        Load& l = loads[i];
        l.loaded = l.is_text ? load_text(l.path, l.shot, l.text) : load(l.path, l.shot, l.doc);
      }
    });
  }
  for (auto& visitor : visitors) visitor.join();
}

// ---- Readers ----

int64_t ShownServerStatus::over() const {
  int64_t sum = 0;
  for (const auto& [key, count] : results) {
    if (key.first == server_state_name(code(ServerState::Over))) sum += count;
  }
  return sum;
}

ShownServerStatus read_server_status_html(const pugi::xml_node& doc) {
  ShownServerStatus shown;
  shown.db_reachable =
      text_at(doc, "//p[contains(@class,'banner')]").find("reachable.") != std::string::npos &&
      text_at(doc, "//p[contains(@class,'banner')]").find("unreachable") == std::string::npos;
  // Daemon, host, pid, state, last heartbeat, age.
  for (const auto& tr : doc.select_nodes("//h2[text()='Daemons']/following-sibling::table[1]/tbody/tr")) {
    std::vector<std::string> cells;
    for (const auto& td : tr.node().children("td")) cells.push_back(node_text(td));
    if (cells.size() != 6) {
      ADD_FAILURE() << "a daemon row of " << cells.size() << " cells";
      continue;
    }
    shown.daemons.push_back({cells[0], cells[1], static_cast<int>(to_int(cells[2])), cells[3] == "running",
                             parse_utc_time(cells[4]), parse_age(cells[5])});
  }
  for (const auto& tr :
       doc.select_nodes("//h2[text()='Results by state']/following-sibling::table[1]/tbody/tr")) {
    const std::string state = node_text(tr.node().child("td"));
    const std::string outcome = node_text(tr.node().child("td").next_sibling("td"));
    shown.results[{state, outcome}] =
        to_int(node_text(tr.node().child("td").next_sibling("td").next_sibling("td")));
  }
  shown.total = to_int(text_at(doc, "//h2[text()='Results by state']/following-sibling::table[1]/tfoot//td"));
  const pugi::xml_node section = doc.select_node("//section[@id='results']").node();
  shown.source = section.attribute("data-source").value();
  shown.as_of = section.attribute("data-as-of").as_llong(-1);
  shown.stale = static_cast<bool>(section.select_node(".//p[contains(@class,'stale')]"));
  return shown;
}

ShownServerStatus read_server_status_json(const std::string& text) {
  ShownServerStatus shown;
  auto json = parse_json(text);
  if (!json.ok()) {
    ADD_FAILURE() << "server_status?format=json: " << json.error() << "\n" << text;
    return shown;
  }
  auto field = [](const JsonValue& object, const char* key) {
    const JsonValue* value = object.find(key);
    if (value == nullptr) ADD_FAILURE() << "server_status JSON: no '" << key << "'";
    static const JsonValue null;
    return value == nullptr ? null : *value;
  };
  shown.db_reachable = field(*json, "db_reachable").boolean;
  for (const auto& d : field(*json, "daemons").items) {
    const JsonValue age = field(d, "heartbeat_age");
    shown.daemons.push_back({field(d, "name").text, field(d, "host").text,
                             static_cast<int>(field(d, "pid").number), field(d, "running").boolean,
                             static_cast<int64_t>(field(d, "last_heartbeat").number),
                             age.kind == JsonValue::Kind::Null ? -1 : static_cast<int64_t>(age.number)});
  }
  shown.source = field(*json, "results_source").text;
  shown.as_of = static_cast<int64_t>(field(*json, "results_as_of").number);
  shown.stale = field(field(*json, "census"), "stale").boolean;
  for (const auto& r : field(*json, "results").items) {
    const auto count = static_cast<int64_t>(field(r, "count").number);
    shown.results[{field(r, "server_state_name").text, field(r, "outcome_name").text}] = count;
    shown.total += count;
  }
  return shown;
}

ShownServerStatus read_server_status_prometheus(const std::string& text) {
  ShownServerStatus shown;
  // name{label="value",...} number
  static const std::regex sample(R"(^([a-z_]+)(\{([^}]*)\})? (\S+)$)");
  static const std::regex label(R"re(([a-z_]+)="((?:[^"\\]|\\.)*)")re");
  std::map<std::pair<std::string, std::string>, ShownDaemon> daemons;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch m;
    if (!std::regex_match(line, m, sample)) {
      ADD_FAILURE() << "not a Prometheus sample: '" << line << "'";
      continue;
    }
    std::map<std::string, std::string> labels;
    const std::string label_text = m[3].str();
    for (std::sregex_iterator it(label_text.begin(), label_text.end(), label), end; it != end; ++it) {
      labels[(*it)[1].str()] = (*it)[2].str();
    }
    const std::string name = m[1].str();
    const double value = std::stod(m[4].str());
    if (name == "tharsis_db_up") shown.db_reachable = value == 1;
    if (name == "tharsis_results_from_census") shown.source = value == 1 ? "census" : "live";
    if (name == "tharsis_results_timestamp_seconds") shown.as_of = static_cast<int64_t>(value);
    if (name == "tharsis_census_stale") shown.stale = value == 1;
    if (name == "tharsis_daemon_up" || name == "tharsis_daemon_heartbeat_age_seconds") {
      ShownDaemon& d = daemons[{labels["daemon"], labels["host"]}];
      d.name = labels["daemon"];
      d.host = labels["host"];
      if (name == "tharsis_daemon_up")
        d.running = value == 1;
      else
        d.age = static_cast<int64_t>(value);
    }
    if (name == "tharsis_results") {
      shown.results[{labels["server_state"], labels["outcome"]}] = static_cast<int64_t>(value);
      shown.total += static_cast<int64_t>(value);
    }
  }
  for (auto& [key, d] : daemons) shown.daemons.push_back(std::move(d));
  return shown;
}

int64_t ShownGraph::total() const {
  int64_t sum = 0;
  for (const auto& [state_name, count] : operands) sum += count;
  return sum;
}

std::map<int64_t, ShownGraph> read_graph_list(const pugi::xml_node& doc) {
  std::map<int64_t, ShownGraph> graphs;
  for (const auto& tr : doc.select_nodes("//tr[@data-graph]")) {
    const pugi::xml_node row = tr.node();
    ShownGraph graph;
    std::vector<std::string> cells;
    for (const auto& td : row.children("td")) cells.push_back(node_text(td));
    // Columns: id, name, state, progress, then one per operand state in code order.
    if (cells.size() != 4 + std::size(kAllOperandStates)) {
      ADD_FAILURE() << "a graph row of " << cells.size() << " cells";
      continue;
    }
    graph.name = cells[1];
    graph.state = cells[2];
    graph.percent = node_text(row.select_node(".//span[@class='pct']").node());
    size_t column = 4;
    for (OperandState state : kAllOperandStates) {
      graph.operands[std::string(operand_state_name(state))] = to_int(cells[column++]);
    }
    graphs[row.attribute("data-graph").as_llong()] = std::move(graph);
  }
  return graphs;
}

ShownGraphDetail read_graph_detail(const pugi::xml_node& doc) {
  ShownGraphDetail shown;
  shown.state = text_at(doc, "//dl[@class='facts']/dt[text()='State']/following-sibling::dd[1]");
  const std::string operands = text_at(doc, "//*[@id='operand-counts']");
  shown.operand_count = operands.substr(0, operands.find(' '));
  for (const auto& span : doc.select_nodes("//*[@id='operand-counts']/span[@data-state]")) {
    shown.counts[span.node().attribute("data-state").value()] = to_int(node_text(span.node()));
  }
  for (const auto& node : doc.select_nodes("//g[@class='node']")) {
    shown.nodes[node.node().attribute("data-id").as_llong()] = node.node().attribute("data-state").value();
  }
  shown.edges = doc.select_nodes("//line[@class='edge']").size();
  shown.staged = text_at(doc, "//*[@id='staged-bytes']");
  const pugi::xml_node series = doc.select_node("//g[@data-series='staged output']").node();
  if (series.child("circle")) shown.staged_points = 1;
  std::istringstream points(series.child("polyline").attribute("points").value());
  for (std::string point; points >> point;) ++shown.staged_points;
  return shown;
}

ShownVolunteers read_volunteers(const pugi::xml_node& doc) {
  ShownVolunteers shown;
  shown.user_count = text_at(doc, "//*[@id='user-count']");
  shown.host_count = text_at(doc, "//*[@id='host-count']");
  shown.top_users_total = credit_rows(doc, "top-users-total", false, false);
  shown.top_users_recent = credit_rows(doc, "top-users-recent", false, false);
  shown.top_hosts_total = credit_rows(doc, "top-hosts-total", true, false);
  shown.top_hosts_recent = credit_rows(doc, "top-hosts-recent", true, false);
  shown.users = credit_rows(doc, "all-users", false, false);
  shown.hosts = credit_rows(doc, "all-hosts", true, true);
  return shown;
}

std::map<std::string, ShownReclusterApp> read_reclustering(const pugi::xml_node& doc) {
  std::map<std::string, ShownReclusterApp> apps;
  for (const auto& tr : doc.select_nodes("//tr[@data-app]")) {
    const pugi::xml_node row = tr.node();
    const std::string name = row.attribute("data-app").value();
    std::vector<std::string> cells;
    for (const auto& td : row.children("td")) cells.push_back(node_text(td));
    if (cells.size() != 5) {
      ADD_FAILURE() << "a reclustering row of " << cells.size() << " cells";
      continue;
    }
    ShownReclusterApp app{cells[1], cells[2], cells[3], cells[4], {}, -1, -1, 0};
    app.note = text_at(doc, "//p[@data-app='" + name + "']");
    static const std::regex assumptions(R"(n = (\d+) tasks, r = (\d+) hosts)");
    std::smatch m;
    if (std::regex_search(app.note, m, assumptions)) {
      app.tasks_left = std::stoll(m[1].str());
      app.hosts = std::stoll(m[2].str());
    } else {
      ADD_FAILURE() << "reclustering of " << name << ": no n and r in '" << app.note << "'";
    }
    // The M(k) chart of this app: in the section its note opens.
    app.curves = doc.select_nodes(("//p[@data-app='" + name +
                                   "']/following-sibling::div[1]//g[@data-series='M(k)']/polyline")
                                      .c_str())
                     .size();
    apps[name] = std::move(app);
  }
  return apps;
}

// ---- Exact checks ----

void expect_server_status_matches_db(const ShownServerStatus& shown, Database& db) {
  EXPECT_TRUE(shown.db_reachable);
  std::map<std::pair<std::string, std::string>, int64_t> expected;
  auto rows = query(db, "SELECT server_state, outcome, COUNT(*) FROM result GROUP BY server_state, outcome");
  while (rows->next()) {
    expected[{server_state_name(rows->getInt(1)), outcome_name(rows->getInt(2))}] = rows->getInt64(3);
  }
  EXPECT_EQ(shown.results, expected);
  EXPECT_EQ(shown.total, query_int(db, "SELECT COUNT(*) FROM result"));
}

void expect_server_status_shows_census(const ShownServerStatus& shown, Database& db) {
  const std::optional<CensusSnapshot> census = fetch_census(db);
  ASSERT_TRUE(census.has_value()) << "no census snapshot stored";
  EXPECT_EQ(shown.source, "census");
  EXPECT_EQ(shown.as_of, census->taken_at);
  EXPECT_FALSE(shown.stale);
  std::map<std::pair<std::string, std::string>, int64_t> expected;
  int64_t total = 0;
  for (const auto& [key, count] : census->results) {
    expected[{server_state_name(key.first), outcome_name(key.second)}] = count;
    total += count;
  }
  EXPECT_EQ(shown.results, expected);
  EXPECT_EQ(shown.total, total);
}

void expect_graph_list_matches_db(const std::map<int64_t, ShownGraph>& shown, Database& db) {
  EXPECT_EQ(static_cast<int64_t>(shown.size()), query_int(db, "SELECT COUNT(*) FROM graph"));
  auto graphs = query(db, "SELECT id, name, state FROM graph");
  while (graphs->next()) {
    const int64_t id = graphs->getInt64(1);
    auto it = shown.find(id);
    if (it == shown.end()) {
      ADD_FAILURE() << "graph " << id << " is not listed";
      continue;
    }
    const ShownGraph& graph = it->second;
    EXPECT_EQ(graph.name, graphs->getString(2));
    EXPECT_EQ(graph.state, graph_state_name(static_cast<GraphState>(graphs->getInt(3))));
    std::map<std::string, int64_t> expected;
    for (OperandState state : kAllOperandStates) expected[std::string(operand_state_name(state))] = 0;
    int64_t total = 0, done = 0;
    auto counts = query(db, "SELECT state, COUNT(*) FROM operand WHERE graph_id = ? GROUP BY state", id);
    while (counts->next()) {
      const auto state = static_cast<OperandState>(counts->getInt(1));
      expected[std::string(operand_state_name(state))] = counts->getInt64(2);
      total += counts->getInt64(2);
      if (state == OperandState::Finished || state == OperandState::Freed) done += counts->getInt64(2);
    }
    EXPECT_EQ(graph.operands, expected) << "graph " << id;
    EXPECT_EQ(graph.percent, std::to_string(total == 0 ? 0 : 100 * done / total) + "%") << "graph " << id;
  }
}

void expect_graph_detail_matches_db(const ShownGraphDetail& shown, Database& db, int64_t graph) {
  EXPECT_EQ(shown.state, graph_state_name(static_cast<GraphState>(
                             query_int(db, "SELECT state FROM graph WHERE id = ?", graph))));
  std::map<int64_t, std::string> nodes;
  std::map<std::string, int64_t> counts;
  int64_t staged = 0;
  auto rows = query(db, "SELECT id, state, output_nbytes FROM operand WHERE graph_id = ?", graph);
  while (rows->next()) {
    const auto state = static_cast<OperandState>(rows->getInt(2));
    nodes[rows->getInt64(1)] = operand_state_name(state);
    ++counts[std::string(operand_state_name(state))];
    if (state == OperandState::Finished) staged += rows->getInt64(3);
  }
  EXPECT_EQ(shown.nodes, nodes);
  EXPECT_EQ(shown.counts, counts);
  EXPECT_EQ(shown.operand_count, std::to_string(nodes.size()));
  EXPECT_EQ(static_cast<int64_t>(shown.edges),
            query_int(db,
                      "SELECT COUNT(*) FROM operand_dependency d JOIN operand o ON o.id = d.successor_id "
                      "WHERE o.graph_id = ?",
                      graph));
  EXPECT_EQ(shown.staged, std::to_string(staged) + " bytes");
  EXPECT_GE(shown.staged_points, 2u) << "the staged data is drawn as a line";
}

void expect_volunteers_match_db(const ShownVolunteers& shown, Database& db) {
  EXPECT_EQ(shown.user_count, std::to_string(query_int(db, "SELECT COUNT(*) FROM user")));
  EXPECT_EQ(shown.host_count, std::to_string(query_int(db, "SELECT COUNT(*) FROM host")));
  auto expect_list = [&](const std::vector<ShownCreditRow>& list, const std::string& sql, const char* what) {
    auto rows = query(db, sql);
    size_t rank = 0;
    while (rows->next()) {
      if (rank >= list.size()) {
        ADD_FAILURE() << what << ": row " << rank + 1 << " missing";
        return;
      }
      const ShownCreditRow& row = list[rank++];
      EXPECT_EQ(row.id, rows->getInt64(1)) << what << " row " << rank;
      EXPECT_EQ(row.name, rows->getString(2)) << what << " row " << rank;
      EXPECT_EQ(row.total, fixed(rows->getDouble(3), 2)) << what << " row " << rank;
      EXPECT_EQ(row.recent, fixed(rows->getDouble(4), 2)) << what << " row " << rank;
    }
    EXPECT_EQ(list.size(), rank) << what;
  };
  expect_list(
      shown.top_users_total,
      "SELECT id, name, total_credit, expavg_credit FROM user ORDER BY total_credit DESC, id DESC LIMIT 10",
      "top users by total");
  expect_list(shown.top_hosts_recent,
              "SELECT id, domain_name, total_credit, expavg_credit FROM host "
              "ORDER BY expavg_credit DESC, id DESC LIMIT 10",
              "top hosts by recent");
  expect_list(shown.hosts,
              "SELECT id, domain_name, total_credit, expavg_credit FROM host ORDER BY id LIMIT 100",
              "all hosts");
  for (const ShownCreditRow& host : shown.hosts) {
    EXPECT_EQ(host.last_contact, query_int(db, "SELECT rpc_time FROM host WHERE id = ?", host.id)) << host.id;
  }
}

void expect_reclustering_matches_db(const std::map<std::string, ShownReclusterApp>& shown, Database& db) {
  size_t with_data = 0;
  auto apps = query(db, "SELECT id, name FROM app WHERE id IN (SELECT appid FROM failure_stat) ORDER BY id");
  while (apps->next()) {
    ++with_data;
    const std::string name = apps->getString(2);
    auto it = shown.find(name);
    if (it == shown.end()) {
      ADD_FAILURE() << "app " << name << " has failure statistics but no row";
      continue;
    }
    auto latest = query(
        db,
        "SELECT cluster_size, alpha, beta, tasks FROM failure_stat WHERE appid = ? ORDER BY time DESC, id "
        "DESC "
        "LIMIT 1",
        apps->getInt64(1));
    latest->next();
    EXPECT_EQ(it->second.k, std::to_string(latest->getInt(1))) << name;
    EXPECT_EQ(it->second.alpha, fixed(latest->getDouble(2), 4)) << name;
    EXPECT_EQ(it->second.beta, fixed(latest->getDouble(3), 4)) << name;
    const int64_t waiting = query_int(db, "SELECT COUNT(*) FROM cluster_task WHERE appid = ? AND state = ?",
                                      apps->getInt64(1), ClusterTaskState::Waiting);
    EXPECT_EQ(it->second.tasks_left, waiting > 0 ? waiting : latest->getInt64(4)) << it->second.note;
    EXPECT_EQ(it->second.curves, 1u) << name;
  }
  EXPECT_EQ(shown.size(), with_data);
}

}  // namespace tharsis::testing
