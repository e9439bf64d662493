// Issue 8's "done when": the status pages in headless Chromium during a running demo.
// MariaDB, Apache, the daemons (graph_scheduler and clusterer too) as processes; plain
// workunits of quorum 2, an operand graph (tools/submit_graph) and clustered tasks
// (tools/submit_tasks, DR) computed by six faulty simulated hosts in one tharsis-client.
// While that runs, every page (server status as HTML, JSON and Prometheus text, the graph
// list, the graph's DAG, reclustering, volunteers) is loaded, a few at a time, between two
// reads of the database, and each number shown is checked in a way that holds while
// things change: a quantity that only grows (results created and over, operands at or
// past each state, credit, heartbeats, last contacts) lies between the read before and
// the read after; each operand's node shows a state between its two; totals fixed during
// the run (operands and edges of the graph, hosts, users, active hosts) are equal; each
// daemon shows running, with its pid and a heartbeat between the two reads; reclustering
// shows an estimate written between them. The loads must happen while results are out
// and the graph unfinished. Once all has settled the pages must equal the database
// exactly (tests/support/status_pages.h's checks, as StatusPagesBrowser's). Screenshots:
// /tmp/tharsis-status-pages-*, printed. Skipped only without Chromium.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <iostream>
#include <optional>
#include <thread>

#include "db/census_store.h"
#include "db/graph_store.h"
#include "db/heartbeat_store.h"
#include "db/queue_stats.h"
#include "db/sql.h"
#include "db/state_names.h"
#include "db/states.h"
#include "db/status_rows.h"
#include "lib/web/graph_progress.h"
#include "lib/web/server_status_render.h"
#include "tests/support/headless_chromium.h"
#include "tests/support/live_project.h"
#include "tests/support/status_pages.h"
#include "tests/support/time_scale.h"

namespace tharsis::status_pages_live_test {
namespace {

using testing::LiveProject;
using testing::StatusPageBrowser;

constexpr int kWorkunits = 60;
constexpr int kClusteredTasks = 60;
// A chain of matmuls: enough levels that the graph is still running while pages load.
constexpr const char* kExpression =
    "a = rand(seed=1, shape=(60,60), chunk=(20,20)); b = rand(seed=2, shape=(60,60), chunk=(20,20));"
    " c = rand(seed=3, shape=(60,60), chunk=(20,20)); result = ((a + b) @ c) @ a";
const std::vector<std::string> kHostFaults{
    "ncpus=2",                                                // sound
    "ncpus=2,inject=app,task_failure=0.1,task_seconds=0.02",  // task_app fails some tasks
    "ncpus=2,task_failure=0.3",                               // crashes, restarted
    "ncpus=2,job_failure=0.1",                                // some jobs fail
    "ncpus=2,slowness=3",                                     // slow
    "ncpus=2,vanish_after=1",                                 // gone after a second: its results time out
};
const std::vector<std::string> kDaemons{"assimilator",     "census",       "clusterer", "file_deleter",
                                        "graph_scheduler", "transitioner", "validator"};

// Operand states in the order an operand passes them (no lost data, nothing FATAL here),
// so "at or past state s" only grows.
int rank_of(OperandState state) { return code(state); }
int rank_of(const std::string& state_name) {
  for (OperandState s : kAllOperandStates) {
    if (operand_state_name(s) == state_name) return code(s);
  }
  ADD_FAILURE() << "unknown operand state '" << state_name << "'";
  return -1;
}
constexpr int kLastLiveRank = 4;  // FREED; above it FATAL and the cancel states

double credit_shown(const std::string& text) { return std::stod(text); }
// A credit as the page prints it, back to the number it shows (rounding keeps order).
double printed(double credit) { return std::stod(testing::fixed(credit, 2)); }

// Live result counts read at some moment: started reading at `start`, done by `end`.
struct LiveCount {
  int64_t start = 0, end = 0;
  int64_t results = 0, over = 0;
};

// What the database says at one moment, of everything the pages show.
struct DbSnapshot {
  int64_t start = 0;  // when this read began
  int64_t time = 0;   // when it ended
  int64_t results = 0;
  int64_t results_over = 0;
  int64_t results_in_progress = 0;
  std::map<std::string, HeartbeatRow> beats;  // by daemon name
  std::optional<CensusSnapshot> census;       // the stored snapshot
  GraphState graph_state = GraphState::Running;
  std::map<int64_t, OperandState> operands;  // by id
  std::map<int64_t, int64_t> output_bytes;   // by operand id
  int64_t edges = 0;
  std::map<int64_t, std::string> user_names, host_names;
  std::map<int64_t, double> user_credit, host_credit;
  std::map<int64_t, int64_t> host_contact;
  struct Estimate {
    int k = 0;
    double alpha = 0, beta = 0;
    int64_t tasks = 0;  // the window's
  };
  std::vector<Estimate> estimates;  // failure_stat of the task app, oldest first (as the page orders)
  int64_t tasks_not_done = 0;

  // Operands at or past rank r.
  int64_t at_or_past(int r) const {
    int64_t n = 0;
    for (const auto& [id, state] : operands) n += rank_of(state) >= r && rank_of(state) <= kLastLiveRank;
    return n;
  }
  std::string describe() const {
    return std::to_string(beats.size()) + " daemons beating, results " + std::to_string(results) + " (" +
           std::to_string(results_in_progress) + " in progress, " + std::to_string(results_over) +
           " over), graph " + graph_state_name(graph_state) + " with " +
           std::to_string(at_or_past(code(OperandState::Finished))) + " of " +
           std::to_string(operands.size()) + " operands done, " + std::to_string(estimates.size()) +
           " failure estimates, " + std::to_string(tasks_not_done) + " clustered tasks not done";
  }
  // Results out with hosts and the graph unfinished: the demo is really running.
  bool in_flight() const { return results_in_progress > 0 && graph_state == GraphState::Running; }
};

// Reads everything; its live result counts are added to `history`.
DbSnapshot snapshot(Database& db, int64_t graph, std::vector<LiveCount>& history) {
  DbSnapshot s;
  s.start = std::time(nullptr);
  s.census = fetch_census(db);
  auto results = query(
      db,
      "SELECT COUNT(*), COALESCE(SUM(server_state = ?), 0), COALESCE(SUM(server_state = ?), 0) FROM result",
      ServerState::Over, ServerState::InProgress);
  results->next();
  s.results = results->getInt64(1);
  s.results_over = results->getInt64(2);
  s.results_in_progress = results->getInt64(3);
  for (auto& beat : fetch_heartbeats(db)) s.beats[beat.name] = beat;
  s.graph_state = static_cast<GraphState>(query_int(db, "SELECT state FROM graph WHERE id = ?", graph));
  auto operands = query(db, "SELECT id, state, output_nbytes FROM operand WHERE graph_id = ?", graph);
  while (operands->next()) {
    s.operands[operands->getInt64(1)] = static_cast<OperandState>(operands->getInt(2));
    s.output_bytes[operands->getInt64(1)] = operands->getInt64(3);
  }
  s.edges = query_int(
      db,
      "SELECT COUNT(*) FROM operand_dependency d JOIN operand o ON o.id = d.successor_id WHERE o.graph_id = "
      "?",
      graph);
  auto users = query(db, "SELECT id, name, total_credit FROM user");
  while (users->next()) {
    s.user_names[users->getInt64(1)] = users->getString(2);
    s.user_credit[users->getInt64(1)] = users->getDouble(3);
  }
  auto hosts = query(db, "SELECT id, domain_name, total_credit, rpc_time FROM host");
  while (hosts->next()) {
    s.host_names[hosts->getInt64(1)] = hosts->getString(2);
    s.host_credit[hosts->getInt64(1)] = hosts->getDouble(3);
    s.host_contact[hosts->getInt64(1)] = hosts->getInt64(4);
  }
  auto estimates = query(
      db,
      "SELECT f.cluster_size, f.alpha, f.beta, f.tasks FROM failure_stat f JOIN app a ON a.id = f.appid "
      "WHERE a.name = 'tasks' ORDER BY f.time, f.id");
  while (estimates->next()) {
    s.estimates.push_back({estimates->getInt(1), static_cast<double>(estimates->getDouble(2)),
                           static_cast<double>(estimates->getDouble(3)), estimates->getInt64(4)});
  }
  s.tasks_not_done =
      query_int(db, "SELECT COUNT(*) FROM cluster_task WHERE state <> ?", ClusterTaskState::Done);
  s.time = std::time(nullptr);
  history.push_back({s.start, s.time, s.results, s.results_over});
  return s;
}

// Why operands went FATAL: their workunits' results (host, outcome, exit status).
std::string fatal_operands(Database& db, int64_t graph) {
  std::string out;
  auto rows = query(
      db,
      "SELECT o.name, r.hostid, r.outcome, r.exit_status, r.client_state FROM operand o JOIN result r ON "
      "r.workunitid = o.workunitid WHERE o.graph_id = ? AND o.state = ?",
      graph, OperandState::Fatal);
  while (rows->next()) {
    out += "\n  FATAL " + rows->getString(1) + ": result on host " + std::to_string(rows->getInt64(2)) +
           ", outcome " + std::to_string(rows->getInt(3)) + ", exit status " +
           std::to_string(rows->getInt(4)) + ", client state " + std::to_string(rows->getInt(5));
  }
  return out;
}

// ---- Checks that hold while the demo runs: before <= shown <= after ----

void expect_between(int64_t shown, int64_t before, int64_t after, const std::string& what) {
  EXPECT_LE(before, shown) << what << " shown below the database's value before the load";
  EXPECT_LE(shown, after) << what << " shown above the database's value after the load";
}

// The largest live count read entirely before second `t` began: counts only grow, so a
// count taken at `t` is at least that.
LiveCount counted_before(const std::vector<LiveCount>& history, int64_t t) {
  LiveCount low;
  for (const LiveCount& c : history) {
    if (c.end < t) {
      low.results = std::max(low.results, c.results);
      low.over = std::max(low.over, c.over);
    }
  }
  return low;
}

// The census snapshot against live counts: what it counted at its time lies between a
// live count done before that second and one begun after it.
void expect_census_between_live(const CensusSnapshot& census, const std::vector<LiveCount>& history) {
  int64_t results = 0, over = 0;
  for (const auto& [key, count] : census.results) {
    results += count;
    if (key.first == code(ServerState::Over)) over += count;
  }
  const LiveCount low = counted_before(history, census.taken_at);
  for (const LiveCount& c : history) {
    if (c.start > census.taken_at) {
      EXPECT_LE(results, c.results) << "census results above a later live count";
      EXPECT_LE(over, c.over) << "census results over above a later live count";
    }
  }
  EXPECT_LE(low.results, results) << "census results below an earlier live count";
  EXPECT_LE(low.over, over) << "census results over below an earlier live count";
}

void expect_server_status_between(const testing::ShownServerStatus& shown, const DbSnapshot& before,
                                  const DbSnapshot& after, const std::vector<LiveCount>& history,
                                  const std::map<std::string, int>& pids, const std::string& page) {
  EXPECT_TRUE(shown.db_reachable) << page;
  // Results by state: the census snapshot stored when the page read it, counted before it
  // was read (so at most the live count after) and after the live counts done before its
  // time.
  ASSERT_TRUE(before.census.has_value() && after.census.has_value()) << page;
  EXPECT_EQ(shown.source, "census") << page;
  EXPECT_FALSE(shown.stale) << page;
  expect_between(shown.as_of, before.census->taken_at, after.census->taken_at, page + ": census time");
  for (const DbSnapshot* s : {&before, &after}) {
    if (shown.as_of != s->census->taken_at) continue;
    std::map<std::pair<std::string, std::string>, int64_t> stored;
    for (const auto& [key, count] : s->census->results)
      stored[{server_state_name(key.first), outcome_name(key.second)}] = count;
    EXPECT_EQ(shown.results, stored) << page << ": not the census snapshot of its time";
  }
  const LiveCount low = counted_before(history, shown.as_of);
  expect_between(shown.total, low.results, after.results, page + ": results");
  expect_between(shown.over(), low.over, after.results_over, page + ": results over");
  int64_t sum = 0;
  for (const auto& [key, count] : shown.results) sum += count;
  EXPECT_EQ(sum, shown.total) << page << ": the rows add up to the total";
  // Each daemon: running, its own pid, a heartbeat between the two reads.
  ASSERT_EQ(shown.daemons.size(), pids.size()) << page;
  for (const testing::ShownDaemon& d : shown.daemons) {
    auto pid = pids.find(d.name);
    ASSERT_NE(pid, pids.end()) << page << ": unexpected daemon row " << d.name;
    EXPECT_TRUE(d.running) << page << ": " << d.name;
    if (d.pid != -1) {
      EXPECT_EQ(d.pid, pid->second) << page << ": " << d.name;
    }
    if (d.last_heartbeat != -1) {
      expect_between(d.last_heartbeat, before.beats.at(d.name).last_beat, after.beats.at(d.name).last_beat,
                     page + ": heartbeat of " + d.name);
    }
    // The page's own clock is between the two reads too.
    EXPECT_GE(d.age, 0) << page << ": " << d.name;
    EXPECT_LE(d.age, after.time - before.beats.at(d.name).last_beat) << page << ": " << d.name;
  }
}

void expect_graph_list_between(const std::map<int64_t, testing::ShownGraph>& shown, int64_t graph,
                               const DbSnapshot& before, const DbSnapshot& after) {
  ASSERT_EQ(shown.size(), 1u);
  ASSERT_EQ(shown.count(graph), 1u);
  const testing::ShownGraph& row = shown.at(graph);
  EXPECT_TRUE(row.state == graph_state_name(before.graph_state) ||
              row.state == graph_state_name(after.graph_state))
      << row.state;
  EXPECT_EQ(row.total(), static_cast<int64_t>(before.operands.size())) << "operands of the graph";
  for (const auto& [state, count] : row.operands) {
    if (rank_of(state) > kLastLiveRank) {
      EXPECT_EQ(count, 0) << state;  // nothing FATAL or cancelled
    }
  }
  for (int r = 1; r <= kLastLiveRank; ++r) {
    int64_t at_or_past = 0;
    for (const auto& [state, count] : row.operands) {
      const int rank = rank_of(state);
      if (rank >= r && rank <= kLastLiveRank) at_or_past += count;
    }
    expect_between(
        at_or_past, before.at_or_past(r), after.at_or_past(r),
        "graph list: operands at or past " + std::string(operand_state_name(static_cast<OperandState>(r))));
  }
  const int64_t done = row.operands.at("finished") + row.operands.at("freed");
  EXPECT_EQ(row.percent, std::to_string(100 * done / row.total()) + "%");
}

void expect_graph_detail_between(const testing::ShownGraphDetail& shown, const DbSnapshot& before,
                                 const DbSnapshot& after) {
  EXPECT_TRUE(shown.state == graph_state_name(before.graph_state) ||
              shown.state == graph_state_name(after.graph_state))
      << shown.state;
  EXPECT_EQ(shown.operand_count, std::to_string(before.operands.size()));
  EXPECT_EQ(static_cast<int64_t>(shown.edges), before.edges);
  ASSERT_EQ(shown.nodes.size(), before.operands.size()) << "a node per operand";
  std::map<std::string, int64_t> counted;
  int64_t staged_low = 0, staged_high = 0;
  for (const auto& [id, state] : before.operands) {
    auto node = shown.nodes.find(id);
    ASSERT_NE(node, shown.nodes.end()) << "operand " << id << " has no node";
    ++counted[node->second];
    const int shown_rank = rank_of(node->second), low = rank_of(state), high = rank_of(after.operands.at(id));
    EXPECT_LE(low, shown_rank) << "operand " << id << " shown " << node->second;
    EXPECT_LE(shown_rank, high) << "operand " << id << " shown " << node->second;
    // Staged bytes: outputs of FINISHED operands, read in a statement of its own.
    const int finished = rank_of(OperandState::Finished);
    if (low == finished && high == finished) staged_low += after.output_bytes.at(id);
    if (low <= finished && finished <= high) staged_high += after.output_bytes.at(id);
  }
  EXPECT_EQ(shown.counts, counted) << "the counts agree with the drawn nodes";
  const int64_t staged = std::stoll(shown.staged);
  expect_between(staged, staged_low, staged_high, "staged bytes");
  // Drawn once an output has been assimilated (a dot while all came in the same second).
  if (before.at_or_past(rank_of(OperandState::Finished)) > 0) {
    EXPECT_GE(shown.staged_points, 1u);
  }
}

void expect_credit_rows_between(const std::vector<testing::ShownCreditRow>& rows,
                                const std::map<int64_t, std::string>& names,
                                const std::map<int64_t, double>& before,
                                const std::map<int64_t, double>& after, bool descending,
                                const std::string& table) {
  double previous = 1e300;
  for (const auto& row : rows) {
    ASSERT_EQ(names.count(row.id), 1u) << table << ": unknown id " << row.id;
    EXPECT_EQ(row.name, names.at(row.id)) << table;
    const double credit = credit_shown(row.total);
    EXPECT_LE(printed(before.at(row.id)), credit) << table << " id " << row.id;
    EXPECT_LE(credit, printed(after.at(row.id))) << table << " id " << row.id;
    if (descending) {
      EXPECT_LE(credit, previous) << table << ": not in credit order";
    }
    previous = credit;
  }
}

void expect_volunteers_between(const testing::ShownVolunteers& shown, const DbSnapshot& before,
                               const DbSnapshot& after) {
  EXPECT_EQ(shown.user_count, std::to_string(before.user_names.size()));
  EXPECT_EQ(shown.host_count, std::to_string(before.host_names.size()));
  EXPECT_EQ(shown.top_users_total.size(), std::min<size_t>(10, before.user_names.size()));
  EXPECT_EQ(shown.hosts.size(), before.host_names.size());
  expect_credit_rows_between(shown.top_users_total, before.user_names, before.user_credit, after.user_credit,
                             true, "top users by total");
  expect_credit_rows_between(shown.top_hosts_total, before.host_names, before.host_credit, after.host_credit,
                             true, "top hosts by total");
  expect_credit_rows_between(shown.hosts, before.host_names, before.host_credit, after.host_credit, false,
                             "all hosts");
  for (const auto& row : shown.hosts) {
    expect_between(row.last_contact, before.host_contact.at(row.id), after.host_contact.at(row.id),
                   "last contact of host " + std::to_string(row.id));
  }
}

// The estimate shown is the newest one when the page read it: one of those written
// between the newest before the load and the newest after it. Rows are only appended, in
// time order, so the "before" rows are a prefix of the "after" ones.
void expect_reclustering_between(const std::map<std::string, testing::ShownReclusterApp>& shown,
                                 const DbSnapshot& before, const DbSnapshot& after, int64_t hosts) {
  if (shown.empty()) {
    EXPECT_TRUE(before.estimates.empty()) << "the task app's estimates are not shown";
    return;
  }
  ASSERT_EQ(shown.size(), 1u);
  ASSERT_EQ(shown.count("tasks"), 1u);
  const testing::ShownReclusterApp& app = shown.at("tasks");
  EXPECT_EQ(app.policy, "DR");
  const DbSnapshot::Estimate* match = nullptr;
  for (size_t i = before.estimates.empty() ? 0 : before.estimates.size() - 1; i < after.estimates.size();
       ++i) {
    const DbSnapshot::Estimate& e = after.estimates[i];
    if (app.k == std::to_string(e.k) && app.alpha == testing::fixed(e.alpha, 4) &&
        app.beta == testing::fixed(e.beta, 4)) {
      match = &e;
    }
  }
  ASSERT_NE(match, nullptr) << "k " << app.k << ", alpha " << app.alpha << ", beta " << app.beta
                            << " is no estimate written between the two reads";
  // n: tasks waiting (some of those not done before), or with none waiting the window's.
  EXPECT_TRUE(app.tasks_left == match->tasks ||
              (app.tasks_left > 0 && app.tasks_left <= before.tasks_not_done))
      << app.note;
  EXPECT_EQ(app.hosts, hosts) << "r: every host has contacted the scheduler";
  EXPECT_EQ(app.curves, 1u);
}

class StatusPagesLive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::chromium_available()) {
      GTEST_SKIP() << "Chromium is not installed (" << testing::kChromium << " missing)";
    }
  }

  // Polls (at most `seconds`) until `done` holds.
  template <class Predicate>
  bool wait_for(double seconds, Predicate done) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
  }
};

TEST_F(StatusPagesLive, PagesDuringARunningDemoShowTheDatabaseNumbers) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  LiveProject live;
  Database& db = live.db();
  live.edit_config([&](ProjectConfig& c) {
    // Every load reads the database (no page cache), with the pages' read-only account.
    testing::configure_status_pages(c, live.url(""), /*cache_off=*/true);
    c.recluster_policy = ReclusterPolicy::DR;
    c.initial_cluster_size = 4;
    c.census_interval = 1;  // a new snapshot of the result counts every second
  });
  std::vector<LiveCount> counts;  // every live count read, for bounding the census's
  StatusPageBrowser browser(live.config().cgi_url);

  // The work: plain workunits (short delay_bound: the vanished host's results time out
  // within the test); below, clustered tasks once the hosts are known, and an operand
  // graph once the clusterer's first estimate is in, so the graph runs while every page
  // has its numbers.
  live.create_example_workunits("live", kWorkunits, 2, 6);
  live.publish_app("operand", "operand_app");
  live.publish_app("tasks", "task_app");

  const std::vector<std::string> args =
      live.simulation_args("live", kHostFaults, static_cast<int>(testing::scaled_seconds(150)));
  live.start_daemons();
  live.start_daemon("graph_scheduler", {"--prefer_seconds", "2"});
  // A job's estimated run time is k seconds on these hosts (1e9 fpops per task and per
  // second): the deadline must allow the k the policy picks (at most n / r = 10).
  live.start_daemon("clusterer",
                    {"--delay_bound", std::to_string(static_cast<int>(testing::scaled_seconds(20)))});
  live.start_daemon("census");
  const std::map<std::string, int> pids = live.daemon_pids();
  testing::TempDir data("tharsis-live-pages");
  auto client = live.start_client("live_simulation", data.path(), args);
  // The clusterer sizes jobs for the hosts that have contacted the scheduler.
  ASSERT_TRUE(
      wait_for(60, [&] { return query_int(db, "SELECT COUNT(*) FROM host") == std::ssize(kHostFaults); }));
  testing::ChildProcess submit_tasks("submit_tasks",
                                     {"--project_dir", live.config().project_dir, "--app", "tasks", "--count",
                                      std::to_string(kClusteredTasks), "--iterations", "20", "--prefix", "t"},
                                     live.config().log_dir + "/submit_tasks.log");
  ASSERT_EQ(submit_tasks.wait(60), 0) << "see log/submit_tasks.log";
  ASSERT_TRUE(wait_for(testing::scaled_seconds(60), [&] {
    return query_int(db, "SELECT COUNT(*) FROM failure_stat") > 0;
  })) << "no failure estimate was written";
  testing::ChildProcess submit(
      "submit_graph",
      {"--project_dir", live.config().project_dir, "--name", "live_graph", "--expression", kExpression,
       "--delay_bound", std::to_string(static_cast<int>(testing::scaled_seconds(6))), "--rsc_fpops_est",
       "1e8", "--prefer_seconds", "2",
       // Room for the faulty hosts' errors: an operand that errs out would fail the graph.
       "--max_error_results", "8", "--max_total_results", "16"},
      live.config().log_dir + "/submit_graph.log");
  ASSERT_EQ(submit.wait(60), 0) << "see log/submit_graph.log";
  auto graph = fetch_graph_by_name(db, "live_graph");
  ASSERT_TRUE(graph.has_value());

  // Work under way: every daemon beating, a census taken, results reported and others out
  // with hosts, some operands done and the graph still running.
  DbSnapshot going;
  ASSERT_TRUE(wait_for(testing::scaled_seconds(60),
                       [&] {
                         going = snapshot(db, graph->id, counts);
                         return going.beats.size() == kDaemons.size() && going.in_flight() &&
                                going.results_over > 0 &&
                                going.at_or_past(rank_of(OperandState::Finished)) > 0 &&
                                going.census.has_value();
                       }))
      << "the demo never got going: " << going.describe();
  std::cout << "under way after " << elapsed() << " s: " << going.describe() << "\n";

  // Each page is loaded between two reads of the database; a load during which results
  // were out (before) and the graph unfinished (after: so all along) counts as flowing.
  using Check = std::function<void(const pugi::xml_document&, const std::string&, const DbSnapshot&,
                                   const DbSnapshot&, bool settled)>;
  struct Page {
    std::string path;
    std::string shot;
    bool text;  // JSON or Prometheus: the text Chromium shows
    Check check;
  };
  const std::string graph_page = "graphs?id=" + std::to_string(graph->id);
  const std::vector<Page> pages{
      {"server_status", "server_status", false,
       [&](const auto& doc, const auto&, const auto& before, const auto& after, bool settled) {
         const auto shown = testing::read_server_status_html(doc);
         expect_server_status_between(shown, before, after, counts, pids, "server_status");
         if (settled) testing::expect_server_status_matches_db(shown, db);
       }},
      {graph_page, "graph_dag", false,
       [&](const auto& doc, const auto&, const auto& before, const auto& after, bool settled) {
         const auto shown = testing::read_graph_detail(doc);
         expect_graph_detail_between(shown, before, after);
         if (settled) testing::expect_graph_detail_matches_db(shown, db, graph->id);
       }},
      {"graphs", "graphs", false,
       [&](const auto& doc, const auto&, const auto& before, const auto& after, bool settled) {
         const auto shown = testing::read_graph_list(doc);
         expect_graph_list_between(shown, graph->id, before, after);
         if (settled) testing::expect_graph_list_matches_db(shown, db);
       }},
      {"server_status?format=json", "server_status_json", true,
       [&](const auto&, const auto& text, const auto& before, const auto& after, bool settled) {
         const auto shown = testing::read_server_status_json(text);
         expect_server_status_between(shown, before, after, counts, pids, "server_status JSON");
         if (settled) testing::expect_server_status_matches_db(shown, db);
       }},
      {"server_status?format=prometheus", "server_status_prometheus", true,
       [&](const auto&, const auto& text, const auto& before, const auto& after, bool settled) {
         const auto shown = testing::read_server_status_prometheus(text);
         expect_server_status_between(shown, before, after, counts, pids, "server_status Prometheus");
         if (settled) testing::expect_server_status_matches_db(shown, db);
       }},
      {"volunteers", "volunteers", false,
       [&](const auto& doc, const auto&, const auto& before, const auto& after, bool settled) {
         const auto shown = testing::read_volunteers(doc);
         expect_volunteers_between(shown, before, after);
         if (settled) testing::expect_volunteers_match_db(shown, db);
       }},
      {"reclustering", "reclustering", false,
       [&](const auto& doc, const auto&, const auto& before, const auto& after, bool settled) {
         const auto shown = testing::read_reclustering(doc);
         expect_reclustering_between(shown, before, after, std::ssize(kHostFaults));
         if (settled) testing::expect_reclustering_matches_db(shown, db);
       }},
  };
  // All pages at once (one Chromium each, as that many visitors) between two reads of the
  // database: what each shows lies between them.
  auto visit_all = [&](const std::string& phase, bool settled) {
    std::vector<StatusPageBrowser::Load> loads(pages.size());
    for (size_t i = 0; i < pages.size(); ++i) {
      loads[i].path = pages[i].path;
      loads[i].shot = phase + "_" + pages[i].shot;
      loads[i].is_text = pages[i].text;
    }
    const DbSnapshot before = snapshot(db, graph->id, counts);
    browser.load_together(loads);
    const DbSnapshot after = snapshot(db, graph->id, counts);
    for (const DbSnapshot* s : {&before, &after}) {
      if (s->census) expect_census_between_live(*s->census, counts);
    }
    for (size_t i = 0; i < pages.size(); ++i) {
      SCOPED_TRACE(phase + ": " + pages[i].path);
      if (loads[i].loaded) pages[i].check(loads[i].doc, loads[i].text, before, after, settled);
    }
    return std::pair{before, after};
  };

  // While the demo runs.
  const auto [first, last] = visit_all("running", false);
  std::cout << "pages loaded after " << elapsed() << " s; results over " << first.results_over << " -> "
            << last.results_over << ", operands done " << first.at_or_past(rank_of(OperandState::Finished))
            << " -> " << last.at_or_past(rank_of(OperandState::Finished)) << " of " << first.operands.size()
            << ", clustered tasks not done " << first.tasks_not_done << " -> " << last.tasks_not_done << "\n";
  EXPECT_TRUE(first.results_in_progress > 0 && last.graph_state == GraphState::Running)
      << "the pages were not loaded while results were out and the graph unfinished";
  EXPECT_GT(last.results_over + last.at_or_past(rank_of(OperandState::Finished)),
            first.results_over + first.at_or_past(rank_of(OperandState::Finished)))
      << "nothing moved while the pages were loaded";

  // Settled: every task done, every workunit over and its files deleted, the graph done,
  // the hosts gone; the pages equal the database (only heartbeats still move).
  ASSERT_TRUE(wait_for(testing::scaled_seconds(120),
                       [&] {
                         going = snapshot(db, graph->id, counts);
                         return going.tasks_not_done == 0 && going.graph_state == GraphState::Done &&
                                workunit_progress(db).settled();
                       }))
      << "the run did not settle: " << going.describe() << fatal_operands(db, graph->id);
  client->signal(SIGTERM);
  EXPECT_EQ(client->wait(20), 0) << "see the project's log/live_simulation.log";
  // And a census counted since.
  const int64_t settled_at = std::time(nullptr);
  ASSERT_TRUE(wait_for(30, [&] {
    const auto census = fetch_census(db);
    return census && census->taken_at > settled_at;
  })) << "no census snapshot after the run settled";
  std::cout << "settled after " << elapsed() << " s\n";
  const auto [before, after] = visit_all("settled", true);
  EXPECT_EQ(before.results, after.results);
  EXPECT_EQ(before.results_over, before.results);
  EXPECT_EQ(before.operands, after.operands);
  EXPECT_EQ(before.user_credit, after.user_credit);
  EXPECT_EQ(before.host_contact, after.host_contact);
  std::cout << "settled pages loaded after " << elapsed() << " s\n";
  EXPECT_TRUE(live.stop_daemons());
}

}  // namespace
}  // namespace tharsis::status_pages_live_test
