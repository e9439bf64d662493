// The status pages as a visitor's browser shows them, for the browser tests: a
// StatusPageBrowser loads pages from a project's Apache in headless Chromium (a screenshot
// of each in one fresh /tmp/tharsis-status-pages-* directory, kept a day for a human,
// never committed), and the read_* functions turn a page's DOM into the numbers it shows, so
// tests compare those with what they read from the database themselves. The
// expect_*_match_db checks are exact: for a database that does not change while the
// page is loaded (a populated one, or a settled run).
#pragma once

#include <cstdint>
#include <map>
#include <pugixml.hpp>
#include <string>
#include <utility>
#include <vector>

#include "db/database.h"
#include "lib/config/project_config.h"

namespace tharsis::testing {

// A database DOUBLE as the pages print it: fixed, with `decimals` digits.
std::string fixed(double value, int decimals);

// All text under the first node `xpath` selects ("" when none).
std::string text_at(const pugi::xml_node& doc, const std::string& xpath);

// Points a project's settings at the pages' SELECT-only account (made here) and at where
// its Apache really is (`url_base`, e.g. "http://127.0.0.1:PORT/"), with the page cache
// off when `cache_off` (so every load reads the database); the caller writes config.xml.
// Returns that account, for tests that check it is read-only.
DbConfig configure_status_pages(ProjectConfig& config, const std::string& url_base, bool cache_off);

class StatusPageBrowser {
 public:
  // Pages are <cgi_url><path>; screenshots go to a new /tmp/tharsis-status-pages-* dir,
  // printed when this object goes away.
  explicit StatusPageBrowser(std::string cgi_url);
  ~StatusPageBrowser();
  const std::string& screenshots() const { return screenshots_; }

  // Loads cgi_url + path and parses its DOM into `doc`; records gtest failures (load,
  // parse, a <script> element anywhere: names are escaped, screenshot missing) and
  // returns false on any.
  bool load(const std::string& path, const std::string& shot, pugi::xml_document& doc);
  // A text response (JSON, Prometheus) as Chromium shows it: the text of its <pre>.
  bool load_text(const std::string& path, const std::string& shot, std::string& text);

  // One page for load_together: a text page's <pre> goes to `text`, any other page's DOM
  // to `doc`; `loaded` says whether it loaded cleanly.
  struct Load {
    std::string path;
    std::string shot;
    bool is_text = false;
    pugi::xml_document doc;
    std::string text;
    bool loaded = false;
  };
  // Loads them all, one Chromium each, several at once as that many visitors would.
  void load_together(std::vector<Load>& loads);

 private:
  std::string cgi_url_;
  std::string screenshots_;
};

// ---- What each page shows ----

struct ShownDaemon {
  std::string name;
  std::string host;
  int pid = -1;  // -1: not shown (Prometheus)
  bool running = false;
  int64_t last_heartbeat = -1;  // Unix seconds; -1: not shown (Prometheus), 0: never
  int64_t age = -1;             // seconds since it; -1: not shown
};

struct ShownServerStatus {
  bool db_reachable = false;
  std::vector<ShownDaemon> daemons;
  // Results by (server_state name, outcome name), e.g. ("OVER", "SUCCESS").
  std::map<std::pair<std::string, std::string>, int64_t> results;
  int64_t total = 0;   // the page's total row (HTML), else the sum of the rows
  std::string source;  // where the results come from: "census" (its snapshot) or "live"
  int64_t as_of = -1;  // when they were counted (Unix seconds)
  bool stale = false;  // the page says the census snapshot is stale
  // Results with server_state OVER, summed over outcomes.
  int64_t over() const;
};

ShownServerStatus read_server_status_html(const pugi::xml_node& doc);
// Records a gtest failure when the text is not the page's JSON / Prometheus form.
ShownServerStatus read_server_status_json(const std::string& text);
ShownServerStatus read_server_status_prometheus(const std::string& text);

struct ShownGraph {
  std::string name;
  std::string state;
  std::map<std::string, int64_t> operands;  // by operand state name, every state
  std::string percent;                      // "42%"
  int64_t total() const;
};
// The graph list, by graph id.
std::map<int64_t, ShownGraph> read_graph_list(const pugi::xml_node& doc);

struct ShownGraphDetail {
  std::string state;
  std::string operand_count;              // the "Operands" fact's first number
  std::map<std::string, int64_t> counts;  // by state name, as listed next to it
  std::map<int64_t, std::string> nodes;   // the DAG's nodes: operand id -> state name
  size_t edges = 0;
  std::string staged;        // "N bytes"
  size_t staged_points = 0;  // points the staged-data chart draws (one alone is a dot)
};
ShownGraphDetail read_graph_detail(const pugi::xml_node& doc);

struct ShownCreditRow {
  int64_t id = 0;
  std::string name;
  std::string owner;  // hosts only
  std::string total;  // credits as printed ("%.2f")
  std::string recent;
  int64_t last_contact = -1;  // Unix seconds (0: never); full host table only
};

struct ShownVolunteers {
  std::string user_count;
  std::string host_count;
  std::vector<ShownCreditRow> top_users_total, top_users_recent, top_hosts_total, top_hosts_recent;
  std::vector<ShownCreditRow> users, hosts;  // the full tables' first page
};
ShownVolunteers read_volunteers(const pugi::xml_node& doc);

struct ShownReclusterApp {
  std::string policy;
  std::string k;
  std::string alpha;
  std::string beta;
  std::string note;         // the paragraph saying what the curve assumes (n, r, t, D)
  int64_t tasks_left = -1;  // its n
  int64_t hosts = -1;       // its r
  size_t curves = 0;        // polylines of the M(k) chart
};
// By app name; empty when the page says no app has data.
std::map<std::string, ShownReclusterApp> read_reclustering(const pugi::xml_node& doc);

// ---- Exact checks against the database ----

// Every (server_state, outcome) count and the total, against a live count.
void expect_server_status_matches_db(const ShownServerStatus& shown, Database& db);
// The results are the stored census snapshot's, with its time, not stale.
void expect_server_status_shows_census(const ShownServerStatus& shown, Database& db);
// Every graph's state, operand counts by state and progress.
void expect_graph_list_matches_db(const std::map<int64_t, ShownGraph>& shown, Database& db);
// The graph's state, each operand's node and state, its edges, counts and staged bytes.
void expect_graph_detail_matches_db(const ShownGraphDetail& shown, Database& db, int64_t graph);
// The counts, the top lists in the database's order with their credits, and the host table.
void expect_volunteers_match_db(const ShownVolunteers& shown, Database& db);
// Each app with failure statistics: its latest k, α, β, and n: the tasks still waiting,
// or with none waiting those of the latest estimate's window.
void expect_reclustering_matches_db(const std::map<std::string, ShownReclusterApp>& shown, Database& db);

}  // namespace tharsis::testing
