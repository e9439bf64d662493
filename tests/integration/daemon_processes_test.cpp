// The daemons as real processes on a real project: a clean stop on SIGTERM and on the
// stop trigger, sharding with --mod 2, also with two --threads each (the census refuses
// both), the census's one pass, and a SIGKILL storm — each daemon killed at random
// instants and restarted many times while volunteers (simulated here through the
// scheduler's DB writes) work — after which tools/check finds nothing repeated or lost.
// The graph scheduler and the clusterer are in the storm and the sharded run too, with
// operand graphs and clustered tasks to move.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "daemons/assimilator/lib/results_store.h"
#include "db/app_store.h"
#include "db/census_store.h"
#include "db/cluster_store.h"
#include "db/heartbeat_store.h"
#include "db/queue_stats.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "lib/recluster/task_io.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"
#include "tests/support/child_process.h"
#include "tests/support/test_project.h"
#include "tools/lib/checker.h"
#include "tools/lib/graph_submit.h"
#include "tools/lib/make_project.h"
#include "tools/lib/submit_tasks.h"

namespace tharsis {
namespace {

using testing::ChildProcess;

class DaemonProcesses : public ::testing::Test {
 protected:
  void SetUp() override { db_ = project_.open(); }
  void share_the_backlog(int threads);

  void create_backlog(int n, int quorum) {
    for (int i = 0; i < n; ++i) {
      JobSpec job;
      job.name = "job" + std::to_string(i);
      job.appid = project_.appid();
      job.inputs = {InputFile{job.name + ".in", "in", "seed " + job.name, false}};
      job.output_template_file = project_.output_template();
      job.min_quorum = quorum;
      job.target_nresults = quorum;
      job.delay_bound = 3600;
      ASSERT_TRUE(create_workunit(*db_, project_.config(), job, std::time(nullptr)).ok());
    }
  }

  // Work for the graph scheduler and the clusterer: `graphs` graphs a=1, b=2, c=a+b,
  // d=c+b, e=a+d (operands in both id parities), and `tasks` clustered tasks of each of two
  // apps (the clusterer shards by app).
  void create_graphs_and_tasks(int graphs, int tasks) {
    for (int i = 0; i < graphs; ++i) {
      GraphSubmission g;
      g.name = "graph" + std::to_string(i);
      g.expression = "hand-made";
      g.operands = {{"a", "const 1", {}},
                    {"b", "const 2", {}},
                    {"c", "add", {0, 1}},
                    {"d", "add", {2, 1}},
                    {"e", "add", {0, 3}}};
      g.job.appid = project_.appid();
      g.job.output_template_file = project_.output_template();
      g.job.delay_bound = 3600;
      auto id = submit_graph(*db_, project_.config(), g, std::time(nullptr));
      ASSERT_TRUE(id.ok()) << id.error();
    }
    int64_t second_app = insert_app(*db_, AppRow{0, "second", "Second", "bitwise"});
    for (int64_t app : {project_.appid(), second_app}) {
      auto submitted =
          submit_cluster_tasks(*db_, app, generated_tasks("app" + std::to_string(app) + "_", tasks, 2));
      ASSERT_TRUE(submitted.ok()) << submitted.error();
    }
  }

  // Everything finished: every workunit's files handled, every task done, every graph over.
  bool all_done() {
    return query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE file_delete_state <> 2") == 0 &&
           query_int(*db_, "SELECT COUNT(*) FROM cluster_task WHERE state <> 2") == 0 &&
           query_int(*db_, "SELECT COUNT(*) FROM graph WHERE state = 0") == 0;
  }

  void expect_graphs_and_tasks_done(int graphs, int tasks) {
    EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM graph WHERE state = 1"), graphs) << "graphs not DONE";
    EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM operand WHERE state = 4"), 5 * graphs)
        << "operands not FREED";
    EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM cluster_task WHERE state = 2"), 2 * tasks);
    // No clustered job left live.
    EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM cluster_job WHERE state = 0"), 0);
  }

  std::unique_ptr<ChildProcess> start(const std::string& daemon, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--project_dir", project_.config().project_dir, "--sleep", "0.05"};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<ChildProcess>(daemon, args, project_.config().log_dir + "/" + daemon + ".log");
  }

  // One round of volunteer work through the scheduler's writes: send every unsent result
  // to its own host, report every result in progress with the workunit's right answer.
  int volunteer_round() {
    int64_t now = std::time(nullptr);
    int worked = 0;
    auto unsent = query(*db_, "SELECT id FROM result WHERE server_state = 2 LIMIT 10");
    std::vector<int64_t> ids;
    while (unsent->next()) ids.push_back(unsent->getInt64(1));
    for (int64_t id : ids)
      worked += db_->transaction([&](Database& d) { return mark_result_sent(d, id, id, 0, now, 3600, 0); });
    auto running = query(*db_, "SELECT id FROM result WHERE server_state = 4 LIMIT 10");
    ids.clear();
    while (running->next()) ids.push_back(running->getInt64(1));
    for (int64_t id : ids) {
      auto r = fetch_result(*db_, id);
      auto files = file_infos_in(r->xml_doc_in);
      // A clustered job's output is its per-task report (every task done); other jobs'
      // any text that is the same for every replica of the workunit.
      std::string answer = "answer for workunit " + std::to_string(r->workunitid);
      auto tasks = fetch_tasks_in_job(*db_, r->workunitid);
      if (!tasks.empty()) {
        std::vector<TaskReport> reports;
        for (const auto& t : tasks) reports.push_back(TaskReport{t.id, true, "out" + std::to_string(t.id)});
        answer = render_task_report(reports);
      }
      for (const auto& f : *files) {
        auto path =
            fanout_path_create(project_.config().upload_dir, f.name, project_.config().uldl_dir_fanout);
        EXPECT_TRUE(write_text_file(*path, answer).ok());
      }
      ResultReport report;
      report.claimed_credit = 1;
      report.xml_doc_out = *describe_uploaded_outputs(project_.config(), r->xml_doc_in);
      worked += db_->transaction([&](Database& d) { return mark_result_reported(d, id, id, now, report); });
    }
    return worked;
  }

  int64_t finished_workunits() {
    return query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE file_delete_state = 2");
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
};

TEST_F(DaemonProcesses, Daemon_StopsCleanlyOnSigtermAndOnStopTrigger) {
  auto transitioner = start("transitioner");
  auto pid_file = project_.config().pid_dir + "/transitioner.pid";
  // The file exists a moment before its creator holds the lock: wait for its pid in it.
  auto holds_pid_file = [&] {
    auto text = read_text_file(pid_file);
    return text.ok() && std::atol(text->c_str()) == transitioner->pid();
  };
  for (int i = 0; i < 500 && !holds_pid_file(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(holds_pid_file());
  // A second instance of the same shard refuses to start.
  auto second = start("transitioner");
  EXPECT_EQ(second->wait(10), 3);
  transitioner->signal(SIGTERM);
  EXPECT_EQ(transitioner->wait(10), 0);
  EXPECT_FALSE(std::filesystem::exists(pid_file));

  auto validator = start("validator");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::ofstream(project_.config().project_dir + "/stop_daemons").close();
  EXPECT_EQ(validator->wait(10), 0);
  std::filesystem::remove(project_.config().project_dir + "/stop_daemons");
  // It left a heartbeat behind.
  auto beats = fetch_heartbeats(*db_);
  ASSERT_FALSE(beats.empty());
  EXPECT_GT(beats.back().last_beat, 0);
}

TEST_F(DaemonProcesses, Daemon_TwoShardsDrainOneBacklogWithoutOverlap) {
  create_backlog(60, 1);
  auto shard0 = start("transitioner", {"--mod", "2", "--mod_id", "0", "--one_pass"});
  auto shard1 = start("transitioner", {"--mod", "2", "--mod_id", "1", "--one_pass"});
  EXPECT_EQ(shard0->wait(60), 0);
  EXPECT_EQ(shard1->wait(60), 0);
  // Every workunit got exactly its one result: nothing created twice, nothing missed.
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM result"), 60);
  EXPECT_EQ(query_int(*db_,
                      "SELECT COUNT(*) FROM (SELECT workunitid FROM result GROUP BY workunitid "
                      "HAVING COUNT(*) <> 1) x"),
            0);
  // Each instance did exactly its own shard's workunits.
  int64_t even = query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE id % 2 = 0");
  for (const auto& beat : fetch_heartbeats(*db_)) {
    EXPECT_EQ(beat.shard.n, 2);
    EXPECT_EQ(beat.units_done, beat.shard.id == 0 ? even : 60 - even) << "shard " << beat.shard.id;
  }
}

TEST_F(DaemonProcesses, Daemon_SigkillAtRandomInstantsRepeatsNothingAndLosesNothing) {
  const int kWorkunits = 300, kGraphs = 6, kTasks = 40;
  create_backlog(kWorkunits, 2);
  create_graphs_and_tasks(kGraphs, kTasks);
  const std::vector<std::string> names{"transitioner", "validator",       "assimilator", "file_deleter",
                                       "census",       "graph_scheduler", "clusterer"};
  std::vector<std::unique_ptr<ChildProcess>> daemons;
  for (const auto& name : names) daemons.push_back(start(name));
  std::mt19937 random(12345);
  int kills = 0;
  std::map<std::string, int> kills_of;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!all_done() && std::chrono::steady_clock::now() < deadline) {
    volunteer_round();
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(2, 30)(random)));
    size_t victim = std::uniform_int_distribution<size_t>(0, names.size() - 1)(random);
    daemons[victim]->signal(SIGKILL);
    daemons[victim]->wait(5);
    ++kills;
    ++kills_of[names[victim]];
    daemons[victim] = start(names[victim]);
  }
  for (size_t i = 0; i < daemons.size(); ++i) {
    // A daemon just restarted may not have reached main() yet, where a SIGTERM would end
    // it before it can stop cleanly; wait until it holds its pid file.
    std::string pid_file = project_.config().pid_dir + "/" + names[i] + ".pid";
    auto holds_pid_file = [&] {
      auto text = read_text_file(pid_file);
      return text.ok() && std::atol(text->c_str()) == daemons[i]->pid();
    };
    for (int t = 0; t < 500 && !holds_pid_file(); ++t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    daemons[i]->signal(SIGTERM);
    EXPECT_EQ(daemons[i]->wait(20), 0) << names[i] << " did not stop cleanly; see its log";
  }
  EXPECT_GE(kills, 25);
  for (const auto& name : names) EXPECT_GE(kills_of[name], 2) << name << " was hardly killed";
  EXPECT_TRUE(all_done()) << "not finished in time";
  EXPECT_EQ(finished_workunits(), query_int(*db_, "SELECT COUNT(*) FROM workunit"));
  CheckReport report = check_project(*db_, project_.config(), std::time(nullptr), /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
  expect_graphs_and_tasks_done(kGraphs, kTasks);
  const int64_t workunits = query_int(*db_, "SELECT COUNT(*) FROM workunit");
  EXPECT_EQ(report.workunits, workunits);
  // The handler's own effect: exactly one manifest per plain workunit, one assimilation each.
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM assimilation"), workunits);
  int manifests = 0;
  for (auto& entry : std::filesystem::directory_iterator(project_.config().project_dir + "/results")) {
    if (entry.path().filename().string().rfind("job", 0) != 0) continue;
    manifests += std::filesystem::exists(entry.path() / "MANIFEST");
  }
  EXPECT_EQ(manifests, kWorkunits);
  // Exactly min_quorum results per workunit: no result created twice by a re-run (plain
  // jobs have a quorum of 2, graph operands and clustered jobs 1).
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM result"), 2 * kWorkunits + (workunits - kWorkunits));
  // The census, killed mid-count or mid-write as often as the others, left a snapshot and
  // takes the next one right.
  ASSERT_TRUE(fetch_census(*db_).has_value());
  auto census = start("census", {"--one_pass"});
  ASSERT_EQ(census->wait(60), 0);
  EXPECT_EQ(fetch_census(*db_)->results, results_by_state(*db_));
  RecordProperty("sigkills", kills);
  std::cout << "SIGKILLs: " << kills << "\n";
}

TEST_F(DaemonProcesses, Census_OnePassStoresTheLiveCountsAndRefusesMod) {
  create_backlog(20, 2);
  auto transitioner = start("transitioner", {"--one_pass"});
  ASSERT_EQ(transitioner->wait(60), 0);
  volunteer_round();  // some results sent and reported: several (server_state, outcome) pairs
  auto census = start("census", {"--one_pass"});
  ASSERT_EQ(census->wait(60), 0);
  auto snapshot = fetch_census(*db_);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(snapshot->results, results_by_state(*db_));
  EXPECT_EQ(snapshot->interval_seconds, project_.config().census_interval);
  EXPECT_GE(snapshot->results.size(), 2u);
  // It beat like every daemon: the status pages judge the snapshot by it.
  bool beat = false;
  for (const auto& row : fetch_heartbeats(*db_)) beat = beat || (row.name == "census" && row.units_done == 1);
  EXPECT_TRUE(beat);
  // One census counts the whole project: sharding it is a usage error.
  auto sharded = start("census", {"--mod", "2", "--mod_id", "0"});
  EXPECT_EQ(sharded->wait(10), 2);
  auto log = read_text_file(project_.config().log_dir + "/census.log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("run one instance"), std::string::npos) << *log;
  auto threaded = start("census", {"--threads", "2"});
  EXPECT_EQ(threaded->wait(10), 2);
}

// Two instances of each sharded daemon (--mod 2), each with `threads` workers, drain one
// backlog while volunteers report: every row settled, nothing done twice.
void DaemonProcesses::share_the_backlog(int threads) {
  const int kWorkunits = 80, kGraphs = 4, kTasks = 20;
  create_backlog(kWorkunits, 2);
  create_graphs_and_tasks(kGraphs, kTasks);
  const std::vector<std::string> names{"transitioner", "validator",       "assimilator",
                                       "file_deleter", "graph_scheduler", "clusterer"};
  std::vector<std::unique_ptr<ChildProcess>> daemons;
  for (const auto& name : names) {
    for (int shard = 0; shard < 2; ++shard) {
      daemons.push_back(start(
          name, {"--mod", "2", "--mod_id", std::to_string(shard), "--threads", std::to_string(threads)}));
    }
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!all_done() && std::chrono::steady_clock::now() < deadline) {
    volunteer_round();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& d : daemons) {
    d->signal(SIGTERM);
    EXPECT_EQ(d->wait(20), 0);
  }
  EXPECT_TRUE(all_done()) << "not finished in time";
  CheckReport report = check_project(*db_, project_.config(), std::time(nullptr), /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
  expect_graphs_and_tasks_done(kGraphs, kTasks);
  // Nothing done twice: one assimilation and exactly min_quorum results per workunit.
  const int64_t workunits = query_int(*db_, "SELECT COUNT(*) FROM workunit");
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM assimilation"), workunits);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM result"), 2 * kWorkunits + (workunits - kWorkunits));
  // Both shards of every daemon did work, and only rows of their own shard: the
  // assimilator's units per shard equal the workunits with that id parity.
  int64_t even = query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE id % 2 = 0");
  for (const auto& beat : fetch_heartbeats(*db_)) {
    EXPECT_EQ(beat.shard.n, 2) << beat.name;
    EXPECT_GT(beat.units_done, 0) << beat.name << " shard " << beat.shard.id << " did nothing";
    if (beat.name == "assimilator") {
      EXPECT_EQ(beat.units_done, beat.shard.id == 0 ? even : workunits - even);
    }
  }
}

TEST_F(DaemonProcesses, Daemon_TwoInstancesOfEachDaemonShareTheBacklogWithNoRowTouchedTwice) {
  share_the_backlog(1);
}

// The same with two workers in each instance (--threads 2): four connections per daemon.
TEST_F(DaemonProcesses, Daemon_TwoInstancesOfTwoThreadsEachShareTheBacklogWithNoRowTouchedTwice) {
  share_the_backlog(2);
}

TEST(DaemonWithDeadDatabase, KeepsRunningWithBackoffAndResumesWhenTheServerReturns) {
  testing::DedicatedServer server;
  testing::TempDir dir("tharsis-deaddb");
  auto made = make_project(testing::dedicated_project_options(server, dir.path(), "dead"));
  ASSERT_TRUE(made.ok()) << made.error();
  std::string log = made->log_dir + "/transitioner.log";
  ChildProcess daemon("transitioner", {"--project_dir", made->project_dir, "--sleep", "0.1"}, log);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  server.halt();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_TRUE(daemon.running()) << "the daemon exited when the database went away";
  auto text = read_text_file(log);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("database unreachable"), std::string::npos) << *text;
  server.start();
  // Work created after the restart is picked up: the daemon reconnected.
  auto db = Database::open(made->db);
  JobSpec job;
  job.name = "after_restart";
  job.appid = 1;
  ASSERT_TRUE(create_workunit(*db, *made, job, std::time(nullptr)).ok());
  bool processed = false;
  // Up to 40 s: the daemon may be inside a back-off wait of up to 30 s when the server returns.
  for (int i = 0; i < 200 && !processed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    processed = query_int(*db, "SELECT COUNT(*) FROM result") > 0;
  }
  EXPECT_TRUE(processed) << "no result created after the database came back";
  daemon.signal(SIGTERM);
  EXPECT_EQ(daemon.wait(20), 0);
}

}  // namespace
}  // namespace tharsis
