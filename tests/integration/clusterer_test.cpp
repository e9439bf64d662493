// Clustered jobs over a real MariaDB and a real project dir (docs/reclustering.md): the clusterer
// forms jobs of the policy's k, the assimilator's settle step retries what the policy
// says (SR: only the failed tasks, regrouped), simulated hosts with injected task and job
// failures run everything to the end with every task done exactly once, the estimator's
// failure_stat rows match the injected rates, and SIGKILLs at random instants of every
// daemon (clusterer included) lose and duplicate nothing. Daemon passes run in-process
// with an injected clock, except in the SIGKILL test, which runs the real programs.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <thread>

#include "client/lib/example_kernel.h"
#include "daemons/assimilator/lib/assimilator_pass.h"
#include "daemons/assimilator/lib/cluster_settle.h"
#include "daemons/clusterer/lib/clusterer_pass.h"
#include "daemons/file_deleter/lib/file_deleter_pass.h"
#include "daemons/transitioner/lib/transitioner_pass.h"
#include "daemons/validator/lib/validator_pass.h"
#include "db/cluster_store.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "db/workunit_store.h"
#include "lib/recluster/task_io.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"
#include "tests/support/child_process.h"
#include "tests/support/test_project.h"
#include "tools/lib/checker.h"
#include "tools/lib/simulated_hosts.h"
#include "tools/lib/submit_tasks.h"

namespace tharsis::clusterer_test {
namespace {

constexpr int64_t kStart = 1'800'000'000;

class Clustering : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = project_.open();
    config_ = project_.config();
    config_.cluster_queue_jobs = 1000;
    options_.batch = 100;
  }

  void use(ReclusterPolicy policy, int k0) {
    config_.recluster_policy = policy;
    config_.initial_cluster_size = k0;
  }

  void submit(int n, int iterations = 3) {
    auto submitted = submit_cluster_tasks(*db_, project_.appid(), generated_tasks("t", n, iterations));
    ASSERT_TRUE(submitted.ok()) << submitted.error();
  }

  // Every daemon's pass, clusterer included, until a full round does nothing.
  void run_daemons() {
    DaemonContext context{config_, options_, Shard{}, 100};
    if (!clusterer_) clusterer_ = std::make_unique<ClustererPass>(config_, ClusterJobParams{});
    TransitionerPass transitioner(config_);
    ValidatorPass validator(config_);
    AssimilatorPass assimilator(config_, cluster_settling_handler(config_, results_store_handler(config_)));
    FileDeleterPass file_deleter(config_);
    for (int round = 0; round < 50; ++round) {
      int done = clusterer_->do_pass(*db_, context, now_) + transitioner.do_pass(*db_, context, now_) +
                 validator.do_pass(*db_, context, now_) + assimilator.do_pass(*db_, context, now_) +
                 file_deleter.do_pass(*db_, context, now_);
      if (done == 0) return;
    }
    FAIL() << "daemons did not settle";
  }

  std::vector<ClusterJobRow> live_jobs() {
    std::vector<ClusterJobRow> live;
    for (auto& j : fetch_cluster_jobs_after(*db_, 0, 100000)) {
      if (j.state == ClusterJobState::Live) live.push_back(j);
    }
    return live;
  }

  std::vector<int64_t> task_ids(int64_t wu) {
    std::vector<int64_t> ids;
    for (const auto& t : fetch_tasks_in_job(*db_, wu)) ids.push_back(t.id);
    return ids;
  }

  // The scheduler's and the client's part for one job: send its result and report it
  // with these per-task verdicts (or a client error when `ok` is empty).
  void run_job_by_hand(int64_t wu, const std::vector<bool>& ok) {
    if (ok.empty()) return report_by_hand(wu, std::nullopt);
    std::vector<TaskReport> reports;
    auto ids = task_ids(wu);
    ASSERT_EQ(ids.size(), ok.size());
    for (size_t i = 0; i < ids.size(); ++i)
      reports.push_back(TaskReport{ids[i], ok[i], "out" + std::to_string(ids[i])});
    report_by_hand(wu, render_task_report(reports), 5.0 * static_cast<double>(ok.size()));
  }

  // Sends the workunit's one result and reports it with `output` in every output file, or
  // as a client error when there is none.
  void report_by_hand(int64_t wu, const std::optional<std::string>& output, double elapsed = 1.0) {
    auto results = fetch_results_of_workunit(*db_, wu);
    ASSERT_EQ(results.size(), 1u);
    const ResultRow& r = results.front();
    ASSERT_TRUE(
        db_->transaction([&](Database& d) { return mark_result_sent(d, r.id, 7, 1, now_, 1000, 1); }));
    ResultReport rp;
    if (!output) {
      rp.outcome = Outcome::ClientError;
      rp.client_state = ClientState::ComputeError;
      rp.exit_status = 1;
    } else {
      auto files = file_infos_in(r.xml_doc_in);
      ASSERT_TRUE(files.ok());
      for (const auto& f : *files) {
        auto path = fanout_path_create(config_.upload_dir, f.name, config_.uldl_dir_fanout);
        ASSERT_TRUE(write_text_file(*path, *output).ok());
      }
      rp.xml_doc_out = *describe_uploaded_outputs(config_, r.xml_doc_in);
      rp.elapsed_time = elapsed;
    }
    ASSERT_TRUE(
        db_->transaction([&](Database& d) { return mark_result_reported(d, r.id, 7, now_ + 1, rp); }));
  }

  // Workunits of the app that are no clustered job, each with its result made.
  std::vector<int64_t> create_plain_workunits(const std::string& prefix, int n) {
    auto out_template = write_output_template(config_, "plain_out.xml", 1, 64 * 1024);
    EXPECT_TRUE(out_template.ok());
    std::vector<int64_t> ids;
    for (int i = 0; i < n; ++i) {
      JobSpec spec;
      spec.name = prefix + std::to_string(i);
      spec.appid = project_.appid();
      spec.output_template_file = *out_template;
      auto id = create_workunit(*db_, config_, spec, now_);
      EXPECT_TRUE(id.ok()) << id.error();
      if (id.ok()) ids.push_back(*id);
    }
    return ids;
  }

  // The transitioner's and validator's passes until neither does anything: what is
  // reported is left READY for the assimilator.
  void run_to_assimilation() {
    DaemonContext context{config_, options_, Shard{}, 100};
    TransitionerPass transitioner(config_);
    ValidatorPass validator(config_);
    for (int round = 0; round < 50; ++round) {
      if (transitioner.do_pass(*db_, context, now_) + validator.do_pass(*db_, context, now_) == 0) return;
    }
    FAIL() << "transitioner and validator did not settle";
  }

  int64_t assimilate_ready() {
    return query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE assimilate_state = ?",
                     AssimilateState::Ready);
  }

  // The statements this connection has sent so far.
  int64_t statements() {
    return query_int(*db_,
                     "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = "
                     "'Questions'");
  }

  // The job runs as `ok` says, then the back end (settle included) and the clusterer act.
  void finish_job(int64_t wu, const std::vector<bool>& ok) {
    run_job_by_hand(wu, ok);
    now_ += 2;
    run_daemons();
  }

  void expect_clean(bool settled) {
    CheckReport report = check_project(*db_, config_, now_, settled);
    for (const auto& v : report.violations) ADD_FAILURE() << v;
  }

  // Runs simulated hosts and the daemons until every task is done; returns the makespan.
  SimulatedHosts run_to_completion(SimulatedHostsConfig hosts_config, int64_t appid) {
    SimulatedHosts hosts(*db_, config_, hosts_config, now_);
    double clock = static_cast<double>(now_);
    for (int step = 0; step < 100000; ++step) {
      now_ = static_cast<int64_t>(std::floor(clock));
      run_daemons();
      hosts.step(clock);
      if (count_tasks_left(*db_, appid) == 0) break;
      const double due = hosts.next_due();
      clock = std::isfinite(due) ? std::max(due, clock + 1) : clock + 1;
    }
    EXPECT_EQ(count_tasks_left(*db_, appid), 0) << "tasks never finished";
    now_ = static_cast<int64_t>(clock) + 1;
    run_daemons();
    return hosts;
  }

  testing::TestProject project_;
  ProjectConfig config_;
  std::unique_ptr<Database> db_;
  DaemonOptions options_;
  std::unique_ptr<ClustererPass> clusterer_;
  int64_t now_ = kStart;
};

TEST_F(Clustering, Clusterer_NoopFormsJobsOfTheFixedK) {
  use(ReclusterPolicy::Noop, 4);
  submit(10);
  run_daemons();
  auto jobs = live_jobs();
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].k, 4);
  EXPECT_EQ(jobs[1].k, 4);
  EXPECT_EQ(jobs[2].k, 2);
  for (const auto& j : jobs) {
    EXPECT_EQ(static_cast<int>(task_ids(j.workunitid).size()), j.k);
    auto wu = fetch_workunit(*db_, j.workunitid);
    EXPECT_EQ(wu->max_error_results, 0) << "an errored job is the policy's to retry, not the back end's";
    EXPECT_EQ(fetch_results_of_workunit(*db_, j.workunitid).size(), 1u);
  }
  expect_clean(false);
  EXPECT_EQ(check_project(*db_, config_, now_, false).cluster.in_jobs, 10);
}

TEST_F(Clustering, Clusterer_DcSizesTheFirstJobsAtNOverActiveHosts) {
  use(ReclusterPolicy::DC, 1);
  SimulatedHostsConfig three;
  three.hosts = 3;
  SimulatedHosts hosts(*db_, config_, three, now_);  // three hosts with an RPC just now
  submit(30);
  run_daemons();
  auto jobs = live_jobs();
  ASSERT_EQ(jobs.size(), 3u) << "no failures seen yet: k* = n/r = 30/3";
  for (const auto& j : jobs) EXPECT_EQ(j.k, 10);
  auto stat_before = fetch_latest_failure_stat(*db_, project_.appid());
  EXPECT_FALSE(stat_before.has_value()) << "failure_stat rows come with settled jobs";
}

TEST_F(Clustering, Clusterer_QueueLimitHoldsBackTasksForLaterEstimates) {
  use(ReclusterPolicy::Noop, 2);
  config_.cluster_queue_jobs = 2;
  submit(10);
  run_daemons();
  EXPECT_EQ(live_jobs().size(), 2u);
  EXPECT_EQ(check_project(*db_, config_, now_, false).cluster.waiting, 6);
}

TEST_F(Clustering, Settle_SrRetriesOnlyTheFailedTasksRegroupedIntoOneJob) {
  use(ReclusterPolicy::SR, 4);
  submit(4);
  run_daemons();
  auto jobs = live_jobs();
  ASSERT_EQ(jobs.size(), 1u);
  const int64_t first = jobs[0].workunitid;
  auto ids = task_ids(first);
  finish_job(first, {true, false, true, false});
  jobs = live_jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(task_ids(jobs[0].workunitid), (std::vector<int64_t>{ids[1], ids[3]}));
  auto settled = fetch_cluster_job(*db_, first);
  EXPECT_EQ(settled->state, ClusterJobState::Settled);
  EXPECT_EQ(settled->failed_tasks, 2);
  EXPECT_FALSE(settled->job_failed);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM cluster_task WHERE state = 2 AND workunitid = ?", first),
            2);
  EXPECT_EQ(query_int(*db_, "SELECT output = CONCAT('out', id) FROM cluster_task WHERE id = ?", ids[0]), 1);
  auto stat = fetch_latest_failure_stat(*db_, project_.appid());
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->jobs, 1);
  EXPECT_EQ(stat->tasks, 4);
  EXPECT_EQ(stat->failed_tasks, 2);
  EXPECT_EQ(stat->policy, "SR");
  EXPECT_EQ(stat->cluster_size, 2) << "k0 = 4, capped at the n = 2 tasks left";
  expect_clean(false);
  // The retry succeeds: every task done, once.
  finish_job(jobs[0].workunitid, {true, true});
  EXPECT_TRUE(live_jobs().empty());
  EXPECT_EQ(count_tasks_left(*db_, project_.appid()), 0);
  expect_clean(true);
}

TEST_F(Clustering, Settle_NoopRetriesTheWholeJobAndAJobFailureReturnsEveryTask) {
  use(ReclusterPolicy::Noop, 3);
  submit(3);
  run_daemons();
  const int64_t first = live_jobs().at(0).workunitid;
  auto ids = task_ids(first);
  finish_job(first, {true, false, true});
  auto jobs = live_jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(task_ids(jobs[0].workunitid), ids) << "NOOP reruns all tasks of a failed job";
  finish_job(jobs[0].workunitid, {});  // the job crashes
  auto lost = fetch_cluster_job(*db_, jobs[0].workunitid);
  EXPECT_TRUE(lost->job_failed);
  EXPECT_EQ(lost->failed_tasks, 3);
  ASSERT_EQ(live_jobs().size(), 1u);
  EXPECT_EQ(task_ids(live_jobs()[0].workunitid), ids);
  auto stat = fetch_latest_failure_stat(*db_, project_.appid());
  EXPECT_EQ(stat->failed_jobs, 1) << "only the crash is a job failure (β)";
  EXPECT_EQ(stat->tasks, 3) << "the crashed job's tasks say nothing about α";
  expect_clean(false);
}

TEST_F(Clustering, Settle_DrSplitsTheFailedTasksWithTheModelsK) {
  use(ReclusterPolicy::DR, 1);
  config_.cluster_task_time_prior = 5;
  config_.cluster_job_overhead_prior = 5;
  submit(12);  // no host active: r = 1, k = n = 12
  run_daemons();
  const int64_t first = live_jobs().at(0).workunitid;
  EXPECT_EQ(live_jobs().at(0).k, 12);
  // Half the tasks fail: α̂ ≈ 6/22 with the prior, so k* < 2 and the six failed tasks
  // come back as jobs of one.
  finish_job(first, {true, false, true, false, true, false, true, false, true, false, true, false});
  auto jobs = live_jobs();
  ASSERT_EQ(jobs.size(), 6u);
  for (const auto& j : jobs) EXPECT_EQ(j.k, 1);
  expect_clean(false);
}

TEST_F(Clustering, Settle_PlainWorkunitsCostNoStatementOfTheirOwnAndAMixedBatchSettlesEachJobOnce) {
  use(ReclusterPolicy::Noop, 2);
  submit(4);
  run_daemons();
  auto jobs = live_jobs();
  ASSERT_EQ(jobs.size(), 2u);

  // 60 plain workunits alone: the assimilator's pass costs a fixed number of statements
  // per batch of 50 (the read of the batch's live cluster jobs among them), none per unit.
  auto plain = create_plain_workunits("plain_", 60);
  run_to_assimilation();
  for (int64_t wu : plain) report_by_hand(wu, "a plain output\n");
  now_ += 2;
  run_to_assimilation();
  ASSERT_EQ(assimilate_ready(), 60);
  DaemonContext context{config_, options_, Shard{}, 100};
  AssimilatorPass assimilator(config_, cluster_settling_handler(config_, results_store_handler(config_)));
  const int64_t before = statements();
  EXPECT_EQ(assimilator.do_pass(*db_, context, now_), 60);
  const int64_t used = statements() - before - 1;  // not the counter's own query
  EXPECT_LE(used, 20) << "the ready ids, then per batch: START, workunits, results, cluster jobs, "
                         "assimilations, workunits, COMMIT";
  EXPECT_EQ(assimilate_ready(), 0);
  EXPECT_EQ(live_jobs().size(), 2u);

  // Both jobs and 10 plain workunits in one batch, one of which was recorded as assimilated
  // meanwhile: the batch's set write finds it, the batch is rolled back and run again unit
  // by unit, and each job is settled once, in the attempt that commits.
  auto mixed = create_plain_workunits("mixed_", 10);
  run_to_assimilation();
  for (int64_t wu : mixed) report_by_hand(wu, "a plain output\n");
  for (const auto& job : jobs) run_job_by_hand(job.workunitid, {true, true});
  now_ += 2;
  run_to_assimilation();
  ASSERT_EQ(assimilate_ready(), 12);
  exec(*db_, "INSERT INTO assimilation (workunitid, time) VALUES (?, ?)", mixed[4], now_);
  EXPECT_EQ(assimilator.do_pass(*db_, context, now_), 11);
  for (const auto& job : jobs) {
    auto settled = fetch_cluster_job(*db_, job.workunitid);
    EXPECT_EQ(settled->state, ClusterJobState::Settled);
    EXPECT_EQ(settled->failed_tasks, 0);
    EXPECT_EQ(settled->settle_time, now_);
  }
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM failure_stat WHERE appid = ?", project_.appid()), 2)
      << "one estimate per job settled, none from the rolled-back attempts";
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM cluster_task WHERE state = 2 AND attempts = 1"), 4);
  EXPECT_EQ(count_tasks_left(*db_, project_.appid()), 0);
  EXPECT_EQ(fetch_workunit(*db_, mixed[4])->assimilate_state, AssimilateState::Ready)
      << "the stale unit alone is left";
  EXPECT_EQ(assimilate_ready(), 1);
  EXPECT_EQ(assimilator.do_pass(*db_, context, now_), 0);  // still stale, and nothing settled again
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM failure_stat WHERE appid = ?", project_.appid()), 2);
}

TEST_F(Clustering, Pipeline_EveryPolicyFinishesEveryTaskExactlyOnceUnderInjectedFailures) {
  int64_t crashes = 0, task_failures = 0;
  for (auto policy : {ReclusterPolicy::Noop, ReclusterPolicy::DC, ReclusterPolicy::SR, ReclusterPolicy::DR}) {
    SCOPED_TRACE(std::string(policy_name(policy)));
    testing::TestProject project;
    db_ = project.open();
    config_ = project.config();
    config_.cluster_queue_jobs = 0;
    clusterer_.reset();
    use(policy, 6);
    now_ = kStart;
    const int n = 48;
    ASSERT_TRUE(submit_cluster_tasks(*db_, project.appid(), generated_tasks("t", n, 2)).ok());
    SimulatedHostsConfig hosts;
    hosts.hosts = 4;
    hosts.task_seconds = 5;
    hosts.faults.task_failure_rate = 0.1;
    hosts.faults.job_failure_rate = 0.1;
    hosts.seed = 11;
    SimulatedHosts sim = run_to_completion(hosts, project.appid());
    // Done once each, with the right output; the settled jobs account for every task once.
    auto tasks = fetch_cluster_tasks_after(*db_, 0, 1000);
    ASSERT_EQ(tasks.size(), static_cast<size_t>(n));
    for (const auto& t : tasks) {
      EXPECT_EQ(t.state, ClusterTaskState::Done);
      EXPECT_EQ(t.output, hash_chain_hex(t.task_key, 2)) << t.task_key;
    }
    EXPECT_EQ(
        query_int(*db_,
                  "SELECT COUNT(*) FROM cluster_task t JOIN cluster_job j ON j.workunitid = t.workunitid "
                  "WHERE t.state = 2 AND j.state = 1"),
        n);
    crashes += sim.jobs_crashed();
    task_failures += sim.tasks_failed();
    CheckReport report = check_project(*db_, config_, now_, /*require_settled=*/true);
    for (const auto& v : report.violations) ADD_FAILURE() << v;
    EXPECT_EQ(report.cluster.done, n);
  }
  EXPECT_GT(crashes, 0) << "the run must have had job failures to show anything";
  EXPECT_GT(task_failures, 0);
}

TEST_F(Clustering, Estimator_FailureStatRowsMatchTheInjectedRates) {
  use(ReclusterPolicy::Noop, 10);
  config_.cluster_queue_jobs = 0;
  submit(800, 1);
  SimulatedHostsConfig hosts;
  hosts.hosts = 8;
  hosts.task_seconds = 1;
  hosts.faults.task_failure_rate = 0.1;
  hosts.faults.job_failure_rate = 0.05;
  hosts.seed = 5;
  (void)run_to_completion(hosts, project_.appid());
  auto stat = fetch_latest_failure_stat(*db_, project_.appid());
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->jobs, config_.cluster_window_jobs);
  // W = 200 jobs of 10: σ(α̂) ≈ 0.007, σ(β̂) ≈ 0.015.
  EXPECT_NEAR(stat->alpha, 0.1, 0.025);
  EXPECT_NEAR(stat->beta, 0.05, 0.04);
  EXPECT_EQ(query_int(*db_, "SELECT MAX(cluster_size) FROM failure_stat WHERE appid = ?", project_.appid()),
            10);
  EXPECT_EQ(stat->hosts, 8);
  EXPECT_NEAR(stat->task_time, 1.0, 1e-9);
  EXPECT_GT(query_int(*db_, "SELECT COUNT(*) FROM failure_stat WHERE appid = ?", project_.appid()), 200);
}

// The real programs, each SIGKILLed at random instants and restarted, while simulated
// hosts (real clock) work through the DB; afterwards nothing is lost or done twice.
TEST_F(Clustering, Daemons_SigkillAtRandomInstantsLosesAndDuplicatesNoTask) {
  use(ReclusterPolicy::DR, 5);
  config_.cluster_queue_jobs = 0;
  ASSERT_TRUE(write_text_file(config_.project_dir + "/config.xml", render_project_config(config_)).ok());
  const int n = 150;
  submit(n, 2);
  SimulatedHostsConfig hosts_config;
  hosts_config.hosts = 6;
  hosts_config.task_seconds = 0.02;
  hosts_config.faults.task_failure_rate = 0.1;
  hosts_config.faults.job_failure_rate = 0.1;
  hosts_config.seed = 3;
  SimulatedHosts hosts(*db_, config_, hosts_config, std::time(nullptr));
  const std::vector<std::string> names{"clusterer", "transitioner", "validator", "assimilator",
                                       "file_deleter"};
  auto start = [&](const std::string& name) {
    return std::make_unique<testing::ChildProcess>(
        name, std::vector<std::string>{"--project_dir", config_.project_dir, "--sleep", "0.05"},
        config_.log_dir + "/" + name + ".log");
  };
  std::vector<std::unique_ptr<testing::ChildProcess>> daemons;
  for (const auto& name : names) daemons.push_back(start(name));
  std::mt19937 random(4242);
  int kills = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  // Kills go on after the last task until there have been enough of them.
  while ((count_tasks_left(*db_, project_.appid()) > 0 || kills < 30) &&
         std::chrono::steady_clock::now() < deadline) {
    hosts.step(static_cast<double>(std::time(nullptr)));
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(2, 40)(random)));
    const size_t victim = std::uniform_int_distribution<size_t>(0, names.size() - 1)(random);
    daemons[victim]->signal(SIGKILL);
    daemons[victim]->wait(5);
    ++kills;
    daemons[victim] = start(names[victim]);
  }
  // Let the back end finish the last jobs' bookkeeping, then stop everything.
  for (int i = 0;
       i < 200 && query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE file_delete_state <> 2") > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (auto& d : daemons) {
    d->signal(SIGKILL);
    d->wait(5);
  }
  EXPECT_GE(kills, 30);
  EXPECT_EQ(count_tasks_left(*db_, project_.appid()), 0);
  auto tasks = fetch_cluster_tasks_after(*db_, 0, 1000);
  ASSERT_EQ(tasks.size(), static_cast<size_t>(n));
  for (const auto& t : tasks) EXPECT_EQ(t.output, hash_chain_hex(t.task_key, 2)) << t.task_key;
  // Each task was finished by exactly one settled job: Σ(k − failed) over the settled jobs
  // that reported task by task is n (a task done twice would make it larger).
  EXPECT_EQ(
      query_int(*db_, "SELECT SUM(k - failed_tasks) FROM cluster_job WHERE state = 1 AND job_failed = 0"), n);
  CheckReport report = check_project(*db_, config_, std::time(nullptr), /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
  EXPECT_EQ(report.cluster.done, n);
  std::cout << "SIGKILLs: " << kills << "\n";
}

}  // namespace
}  // namespace tharsis::clusterer_test
