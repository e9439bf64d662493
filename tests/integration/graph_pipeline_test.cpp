// Operand graphs over a real MariaDB and a real project dir: hand-made graphs driven through
// the graph scheduler and the four back-end daemons in-process, hosts simulated by writing
// results as the scheduler would (send, compute from the staged inputs, upload, report).
// The "app" here: spec "const X" outputs X; spec "add" outputs the sum of its inputs.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "daemons/assimilator/lib/results_store.h"
#include "daemons/file_deleter/lib/file_deleter_pass.h"
#include "daemons/graph_scheduler/lib/graph_cancel.h"
#include "daemons/graph_scheduler/lib/graph_scheduler_pass.h"
#include "daemons/graph_scheduler/lib/output_staging.h"
#include "db/file_store.h"
#include "db/graph_store.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "db/user_store.h"
#include "db/workunit_store.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/md5.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"
#include "sched/lib/rpc/scheduler_rpc.h"
#include "tests/support/daemon_rounds.h"
#include "tests/support/held_elsewhere.h"
#include "tests/support/test_project.h"
#include "tools/lib/checker.h"
#include "tools/lib/graph_submit.h"

namespace tharsis::graph_pipeline_test {
namespace {

constexpr int64_t kStart = 1'800'000'000;
using S = OperandState;

std::string number_text(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g\n", x);
  return buffer;
}

class GraphPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = project_.open();
    // The hosts these tests compute on, asking for work now (a reservation for a host that
    // cannot take work is released early: ReservationForAHostThatCannotTakeWorkIsReleasedEarly).
    for (int64_t host : {11, 12, 13})
      exec(*db_, "INSERT INTO host (id, userid, rpc_time) VALUES (?, 1, ?)", host, now_);
  }

  OperandSubmission op(const std::string& name, const std::string& spec, std::vector<int> inputs = {}) {
    OperandSubmission o;
    o.name = name;
    o.spec = spec;
    o.inputs = std::move(inputs);
    return o;
  }

  int64_t submit(const std::string& name, std::vector<OperandSubmission> operands) {
    GraphSubmission g;
    g.name = name;
    g.expression = "hand-made";
    g.operands = std::move(operands);
    g.job.appid = project_.appid();
    g.job.output_template_file = project_.output_template();
    g.job.delay_bound = 1000;
    g.job.max_error_results = 1;
    auto id = submit_graph(*db_, project_.config(), g, now_);
    EXPECT_TRUE(id.ok()) << id.error();
    return id.ok() ? *id : 0;
  }

  // Every daemon's pass, the graph scheduler's first, until a full round does nothing.
  void run_daemons() {
    GraphSchedulerPass graphs(project_.config(), 60);
    ASSERT_TRUE(testing::run_daemons_until_idle(*db_, project_.config(), now_, {&graphs}))
        << "daemons did not settle";
  }

  OperandRow operand(int64_t graph_id, const std::string& name) {
    for (auto& o : fetch_operands_of_graph(*db_, graph_id)) {
      if (o.name == name) return o;
    }
    ADD_FAILURE() << "no operand " << name;
    return {};
  }
  S state(int64_t graph_id, const std::string& name) { return operand(graph_id, name).state; }
  std::vector<ResultRow> results_of(int64_t graph_id, const std::string& name) {
    return fetch_results_of_workunit(*db_, operand(graph_id, name).workunitid);
  }
  std::string download_path(const std::string& file) {
    return fanout_path(project_.config().download_dir, file, project_.config().uldl_dir_fanout);
  }
  std::string upload_path(const std::string& file) {
    return fanout_path(project_.config().upload_dir, file, project_.config().uldl_dir_fanout);
  }

  void send(const ResultRow& r, int64_t host) {
    ASSERT_TRUE(
        db_->transaction([&](Database& d) { return mark_result_sent(d, r.id, host, 1, now_, 1000, 1); }));
  }
  void report(const ResultRow& r, int64_t host, const ResultReport& rp) {
    ASSERT_TRUE(db_->transaction([&](Database& d) { return mark_result_reported(d, r.id, host, now_, rp); }));
  }
  // The host's report after result_abort (a cancelled graph's job).
  void report_aborted(int64_t result_id, int64_t host) {
    ResultReport aborted;
    aborted.outcome = Outcome::ClientError;
    aborted.client_state = ClientState::Aborted;
    aborted.exit_status = 203;
    report(fetch_result(*db_, result_id).value(), host, aborted);
  }
  // The host's part: the inputs as downloaded (each checked against its md5), the app's
  // answer uploaded, a success reported.
  void compute(const ResultRow& r, int64_t host) {
    auto wu = fetch_workunit(*db_, r.workunitid);
    std::vector<std::string> contents;
    const std::string ref = "<file_ref><file_name>";
    for (size_t at = wu->xml_doc.find(ref); at != std::string::npos; at = wu->xml_doc.find(ref, at + 1)) {
      size_t begin = at + ref.size();
      std::string name = wu->xml_doc.substr(begin, wu->xml_doc.find('<', begin) - begin);
      auto text = read_text_file(download_path(name));
      ASSERT_TRUE(text.ok()) << "input " << name << " of " << wu->name << " is not staged";
      EXPECT_NE(wu->xml_doc.find("<md5_cksum>" + md5_hex(*text) + "</md5_cksum>"), std::string::npos)
          << "input " << name << " does not match its md5";
      contents.push_back(*text);
    }
    ASSERT_FALSE(contents.empty());
    const std::string& spec = contents[0];
    double value = 0;
    if (spec.rfind("const ", 0) == 0) {
      value = std::stod(spec.substr(6));
    } else {
      for (size_t i = 1; i < contents.size(); ++i) value += std::stod(contents[i]);
    }
    auto outputs = file_infos_in(r.xml_doc_in);
    ASSERT_TRUE(outputs.ok());
    for (const auto& f : *outputs) {
      auto path = fanout_path_create(project_.config().upload_dir, f.name, project_.config().uldl_dir_fanout);
      ASSERT_TRUE(write_text_file(*path, number_text(value)).ok());
    }
    if (r.server_state == ServerState::Unsent) send(r, host);
    ResultReport rp;
    rp.claimed_credit = 1;
    rp.xml_doc_out = *describe_uploaded_outputs(project_.config(), r.xml_doc_in);
    report(r, host, rp);
  }
  // Computes every unsent result of the named operands (all operands when empty) on `host`.
  int work(int64_t graph_id, int64_t host, const std::set<std::string>& only = {}) {
    int n = 0;
    for (const auto& o : fetch_operands_of_graph(*db_, graph_id)) {
      if (!only.empty() && !only.count(o.name)) continue;
      for (const auto& r : fetch_results_of_workunit(*db_, o.workunitid)) {
        if (r.server_state == ServerState::Unsent) {
          compute(r, host);
          ++n;
        }
      }
    }
    return n;
  }
  double value_of(int64_t graph_id, const std::string& name) {
    auto wu = fetch_workunit(*db_, operand(graph_id, name).workunitid);
    auto manifest = read_manifest(project_.config().project_dir + "/results", wu->name);
    EXPECT_TRUE(manifest.ok()) << manifest.error();
    if (!manifest.ok() || manifest->empty()) return -1;
    auto text =
        read_text_file(project_.config().project_dir + "/results/" + wu->name + "/" + manifest->front().name);
    return text.ok() ? std::stod(*text) : -1;
  }
  GraphState graph_state(int64_t graph_id) { return fetch_graph(*db_, graph_id)->state; }
  void expect_clean() {
    CheckReport report = check_project(*db_, project_.config(), now_, /*require_settled=*/false);
    for (const auto& v : report.violations) ADD_FAILURE() << v;
  }
  void expect_settled_and_clean() {
    CheckReport report = check_project(*db_, project_.config(), now_, /*require_settled=*/true);
    for (const auto& v : report.violations) ADD_FAILURE() << v;
  }

  // a=1, b=2, c=a+b, e=4, d=c+e (= 7).
  int64_t diamond(const std::string& name) {
    return submit(name, {op("a", "const 1"), op("b", "const 2"), op("c", "add", {0, 1}), op("e", "const 4"),
                         op("d", "add", {2, 3})});
  }

  // a=5 and e=4; b=a+0 needs a alone, c=a+e both: c becomes READY after b, reusing the copy
  // of a's output staged in download/ for b. Returns the graph with b finished and its
  // workunit's inputs due for deletion but held back (a file_delete_retry row, which
  // release_deletion drops), and e computed and FINISHED: c is due to be promoted.
  int64_t sibling_reuse(const std::string& name) {
    int64_t g =
        submit(name, {op("a", "const 5"), op("e", "const 4"), op("b", "add", {0}), op("c", "add", {0, 1})});
    run_daemons();
    work(g, 11, {"a"});
    run_daemons();
    EXPECT_EQ(state(g, "b"), S::Ready);
    EXPECT_EQ(state(g, "c"), S::Unscheduled) << "e has not run";
    exec(*db_, "INSERT INTO file_delete_retry (owner, id, failures, next_time) VALUES (0, ?, 1, ?)",
         operand(g, "b").workunitid, now_ + 1000);
    work(g, 12, {"b"});
    run_daemons();
    EXPECT_EQ(state(g, "b"), S::Finished);
    EXPECT_EQ(fetch_workunit(*db_, operand(g, "b").workunitid)->file_delete_state, FileDeleteState::Ready);
    // e's job done and recorded, without the graph scheduler's promotion pass.
    work(g, 13, {"e"});
    EXPECT_TRUE(testing::run_daemons_until_idle(*db_, project_.config(), now_));
    GraphSchedulerPass graphs(project_.config(), 60);
    EXPECT_TRUE(graphs.end_job(*db_, operand(g, "e").id, now_));
    EXPECT_EQ(state(g, "c"), S::Unscheduled);
    EXPECT_TRUE(std::filesystem::exists(download_path(staged_input(g))));
    return g;
  }
  std::string staged_input(int64_t g) { return operand(g, "a").output_file + ".in"; }
  void release_deletion(int64_t g) {
    exec(*db_, "DELETE FROM file_delete_retry WHERE owner = 0 AND id = ?", operand(g, "b").workunitid);
  }
  // One file deleter pass at now_ over connection `db`.
  int delete_files(Database& db) {
    DaemonOptions options;
    options.batch = 100;
    DaemonContext context{project_.config(), options, Shard{}, 100};
    FileDeleterPass deleter(project_.config());
    return deleter.do_pass(db, context, now_);
  }
  // c's job computed from its staged inputs: the graph is done with 5 + 4.
  void finish_with_c(int64_t g) {
    run_daemons();
    while (work(g, 14) > 0) run_daemons();
    EXPECT_EQ(graph_state(g), GraphState::Done);
    EXPECT_DOUBLE_EQ(value_of(g, "c"), 9.0);
    EXPECT_TRUE(downloads_deleting(*db_, {staged_input(g)}).empty()) << "a deleting mark left behind";
    expect_settled_and_clean();
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  int64_t now_ = kStart;
};

TEST_F(GraphPipeline, OperandsRunInDependencyOrderAndTheAnswerIsRight) {
  int64_t g = diamond("lifecycle");
  run_daemons();
  EXPECT_EQ(state(g, "a"), S::Ready);
  EXPECT_EQ(state(g, "e"), S::Ready);
  EXPECT_EQ(state(g, "c"), S::Unscheduled);
  EXPECT_TRUE(results_of(g, "c").empty()) << "results created before the inputs were ready";
  EXPECT_EQ(fetch_workunit(*db_, operand(g, "c").workunitid)->transition_time, kTransitionNever);

  auto a_results = results_of(g, "a");
  ASSERT_EQ(a_results.size(), 1u);
  send(a_results[0], 11);
  run_daemons();
  EXPECT_EQ(state(g, "a"), S::Running);

  EXPECT_EQ(work(g, 11, {"a", "b"}), 1) << "a's result was sent already; b's is new";
  compute(fetch_result(*db_, a_results[0].id).value(), 11);
  run_daemons();
  EXPECT_EQ(state(g, "a"), S::Finished);
  EXPECT_EQ(state(g, "b"), S::Finished);
  EXPECT_EQ(state(g, "c"), S::Ready);
  EXPECT_EQ(state(g, "d"), S::Unscheduled);
  OperandRow c = operand(g, "c");
  EXPECT_EQ(c.preferred_host, 11) << "c's inputs are on host 11";
  EXPECT_GT(c.preferred_until, now_);
  EXPECT_EQ(fetch_workunit(*db_, c.workunitid)->priority, 0);

  work(g, 12, {"c"});
  run_daemons();
  EXPECT_EQ(state(g, "a"), S::Freed) << "c, a's only successor, finished";
  EXPECT_EQ(state(g, "c"), S::Finished) << "d still waits for e";
  expect_clean();
  EXPECT_TRUE(read_text_file(upload_path(operand(g, "c").output_file)).ok()) << "c's output deleted early";

  while (work(g, 13) > 0) run_daemons();
  EXPECT_EQ(graph_state(g), GraphState::Done);
  EXPECT_DOUBLE_EQ(value_of(g, "d"), 7.0);
  for (const auto& o : fetch_operands_of_graph(*db_, g)) EXPECT_EQ(o.state, S::Freed) << o.name;
  EXPECT_FALSE(read_text_file(upload_path(operand(g, "c").output_file)).ok()) << "c's output left behind";
  expect_settled_and_clean();
}

// Issue 18: c, whose inputs a and b host 11 computed, is reserved for host 11; it waited
// out the whole --prefer_seconds even when host 11 could take no work.
TEST_F(GraphPipeline, ReservationForAHostThatCannotTakeWorkIsReleasedEarly) {
  GraphSchedulerPass graphs(project_.config(), /*prefer_seconds=*/100000, /*silent_seconds=*/3600);
  auto run = [&] { ASSERT_TRUE(testing::run_daemons_until_idle(*db_, project_.config(), now_, {&graphs})); };
  int64_t g = submit("reserved", {op("a", "const 1"), op("b", "const 2"), op("c", "add", {0, 1})});
  run();
  work(g, 11, {"a", "b"});
  run();
  ASSERT_EQ(state(g, "c"), S::Ready);
  EXPECT_EQ(operand(g, "c").preferred_host, 11);
  EXPECT_GT(operand(g, "c").preferred_until, now_) << "host 11 asks and has quota left: reserved";

  // Host 11 has spent today's quota (the project's default, 500): released at the next pass.
  exec(*db_, "UPDATE host SET nresults_today = 500, nresults_day = ? WHERE id = 11", now_ / 86400);
  now_ += 5;
  run();
  EXPECT_EQ(operand(g, "c").preferred_until, now_) << "still reserved for a host that can take nothing";

  // A host that stopped asking (no RPC for more than an hour): released too; one that asks
  // again keeps its reservation.
  exec(*db_, "UPDATE host SET nresults_today = 0, rpc_time = ? WHERE id = 13", now_ - 3601);
  int64_t h = submit("silent", {op("a", "const 1"), op("b", "const 2"), op("c", "add", {0, 1})});
  run();
  work(h, 13, {"a", "b"});
  run();
  ASSERT_EQ(state(h, "c"), S::Ready);
  EXPECT_EQ(operand(h, "c").preferred_host, 13);
  EXPECT_EQ(operand(h, "c").preferred_until, now_) << "reserved for a host silent for an hour";
  exec(*db_, "UPDATE host SET rpc_time = ? WHERE id = 11", now_);
  exec(*db_, "UPDATE host SET nresults_today = 0 WHERE id = 11");
  int64_t k = submit("kept", {op("a", "const 1"), op("b", "const 2"), op("c", "add", {0, 1})});
  run();
  work(k, 11, {"a", "b"});
  run();
  EXPECT_GT(operand(k, "c").preferred_until, now_) << "host 11 can take work again";
  expect_clean();
}

TEST_F(GraphPipeline, OutputIsFreedOnlyAfterEverySuccessorFinished) {
  // a feeds b and c; b finishes long before c.
  int64_t g = submit("fanout", {op("a", "const 5"), op("b", "add", {0}), op("c", "add", {0, 0})});
  run_daemons();
  work(g, 11);
  run_daemons();
  ASSERT_EQ(state(g, "b"), S::Ready);
  ASSERT_EQ(state(g, "c"), S::Ready);
  std::string a_output = upload_path(operand(g, "a").output_file);
  work(g, 12, {"b"});
  run_daemons();
  EXPECT_EQ(state(g, "b"), S::Finished);
  EXPECT_EQ(state(g, "a"), S::Finished) << "c has not finished";
  EXPECT_TRUE(read_text_file(a_output).ok()) << "a's output deleted while c still needs it";
  work(g, 13, {"c"});
  run_daemons();
  EXPECT_EQ(graph_state(g), GraphState::Done);
  EXPECT_EQ(state(g, "a"), S::Freed);
  EXPECT_FALSE(read_text_file(a_output).ok());
  EXPECT_DOUBLE_EQ(value_of(g, "c"), 10.0) << "a + a";
  expect_settled_and_clean();
}

TEST_F(GraphPipeline, FatalOperandCancelsItsSuccessorsAndFailsTheGraph) {
  int64_t g = diamond("fatal");
  run_daemons();
  for (int attempt = 0; attempt < 2; ++attempt) {  // max_error_results = 1: the second error is fatal
    auto results = results_of(g, "b");
    const ResultRow& r = results.back();
    ASSERT_EQ(r.server_state, ServerState::Unsent);
    send(r, 20);
    ResultReport failed;
    failed.outcome = Outcome::ClientError;
    failed.client_state = ClientState::ComputeError;
    failed.exit_status = 1;
    report(r, 20, failed);
    run_daemons();
  }
  EXPECT_EQ(state(g, "b"), S::Fatal);
  EXPECT_EQ(state(g, "c"), S::Cancelled);
  EXPECT_EQ(state(g, "d"), S::Cancelled);
  EXPECT_EQ(graph_state(g), GraphState::Running) << "a and e still run";
  work(g, 21);
  run_daemons();
  EXPECT_EQ(state(g, "a"), S::Freed);
  EXPECT_EQ(graph_state(g), GraphState::Failed);
  EXPECT_TRUE(fetch_workunit(*db_, operand(g, "d").workunitid)->error_mask & kWuErrorCancelled);
  expect_settled_and_clean();
}

TEST_F(GraphPipeline, CancelStopsEverythingAndAbortsWorkInFlight) {
  int64_t g = diamond("cancel");
  run_daemons();
  work(g, 11, {"a", "b"});
  run_daemons();
  auto c_results = results_of(g, "c");
  ASSERT_EQ(c_results.size(), 1u);
  send(c_results[0], 12);
  run_daemons();
  ASSERT_NE(state(g, "c"), S::Finished) << "not recorded yet";

  ASSERT_TRUE(cancel_graph(*db_, g, now_).ok());
  EXPECT_EQ(graph_state(g), GraphState::Cancelling);
  EXPECT_EQ(state(g, "c"), S::Cancelling);
  EXPECT_EQ(state(g, "d"), S::Cancelled);
  EXPECT_EQ(state(g, "a"), S::Freed);
  EXPECT_FALSE(cancel_graph(*db_, g + 1000, now_).ok()) << "no such graph";
  run_daemons();
  auto e_results = results_of(g, "e");
  ASSERT_EQ(e_results.size(), 1u);
  EXPECT_EQ(e_results[0].outcome, Outcome::DidntNeed) << "unsent work is withdrawn";
  EXPECT_TRUE(fetch_workunit(*db_, operand(g, "c").workunitid)->error_mask & kWuErrorCancelled)
      << "the scheduler aborts results of a workunit with an error at the host's next RPC";
  EXPECT_EQ(graph_state(g), GraphState::Cancelling) << "c's result is still out";
  expect_clean();

  report_aborted(c_results[0].id, 12);
  run_daemons();
  EXPECT_EQ(state(g, "c"), S::Cancelled);
  EXPECT_EQ(graph_state(g), GraphState::Cancelled);
  EXPECT_FALSE(cancel_graph(*db_, g, now_).ok()) << "cancelled already";
  expect_settled_and_clean();
}

// A promotion stages its inputs before it commits; one that rolls back (here: an input
// found lost, which sends its producer to run again) leaves the copies it staged named by
// no workunit. When the graph is then cancelled, the graph scheduler removes them; a copy
// a live workunit took stays until that workunit is over.
TEST_F(GraphPipeline, ACancelledGraphLeavesNoCopyStagedForASuccessorThatNeverRan) {
  // c = a + e; b = f + 0 runs meanwhile.
  int64_t g = submit("leftover", {op("a", "const 5"), op("e", "const 4"), op("c", "add", {0, 1}),
                                  op("f", "const 6"), op("b", "add", {3})});
  run_daemons();
  work(g, 11, {"a", "f"});
  run_daemons();
  ASSERT_EQ(state(g, "b"), S::Ready);
  auto b_results = results_of(g, "b");
  ASSERT_EQ(b_results.size(), 1u);
  send(b_results[0], 13);
  run_daemons();
  ASSERT_EQ(state(g, "b"), S::Running);
  const std::string f_copy = download_path(operand(g, "f").output_file + ".in");
  ASSERT_TRUE(std::filesystem::exists(f_copy));
  // a's output lost: c's promotion stages e's output, finds a's gone and runs a again.
  std::filesystem::remove(upload_path(operand(g, "a").output_file));
  work(g, 12, {"e"});
  run_daemons();
  ASSERT_EQ(operand(g, "a").runs, 2);
  ASSERT_EQ(state(g, "c"), S::Unscheduled);
  const std::string e_name = operand(g, "e").output_file + ".in";
  ASSERT_TRUE(std::filesystem::exists(download_path(e_name))) << "c's promotion staged it";
  EXPECT_TRUE(live_file_users(*db_, std::vector<std::string>{e_name}).empty());

  ASSERT_TRUE(cancel_graph(*db_, g, now_).ok());
  run_daemons();
  EXPECT_EQ(graph_state(g), GraphState::Cancelling) << "b's result is still out";
  EXPECT_TRUE(std::filesystem::exists(download_path(e_name))) << "removed before the graph was over";
  EXPECT_TRUE(std::filesystem::exists(f_copy)) << "b's live workunit names it";

  report_aborted(b_results[0].id, 13);
  run_daemons();
  EXPECT_EQ(graph_state(g), GraphState::Cancelled);
  EXPECT_FALSE(std::filesystem::exists(download_path(e_name))) << "the copy no workunit took is left behind";
  EXPECT_FALSE(std::filesystem::exists(f_copy)) << "b's input outlived its workunit";
  expect_settled_and_clean();
}

TEST_F(GraphPipeline, SchedulerAbortsACancelledGraphsJobAtTheHostsNextRpc) {
  UserRow user;
  user.name = "volunteer";
  user.authenticator = "graph_key_0123456789";
  insert_user(*db_, user);
  auto upload_key = load_boinc_private_key(project_.config().key_dir + "/upload_private");
  ASSERT_TRUE(upload_key.ok()) << upload_key.error();
  SchedulerContext context{project_.config(), *upload_key, "", ProtocolLimits{}};
  auto rpc = [&](int64_t hostid, const std::string& extra) {
    std::string body =
        "<scheduler_request>\n<authenticator>graph_key_0123456789</authenticator>\n<hostid>" +
        std::to_string(hostid) +
        "</hostid>\n<rpc_seqno>1</rpc_seqno>\n<platform_name>x86_64-pc-linux-gnu</platform_name>\n"
        "<work_req_seconds>0</work_req_seconds>\n<host_info>\n<host_cpid>graphhost</host_cpid>\n"
        "<p_ncpus>1</p_ncpus>\n</host_info>\n" +
        extra + "</scheduler_request>\n";
    return handle_scheduler_request(body, *db_, context, now_);
  };
  int64_t host = rpc(0, "").hostid;
  ASSERT_GT(host, 0);
  int64_t g = diamond("abort");
  run_daemons();
  auto a_results = results_of(g, "a");
  send(a_results[0], host);
  std::string held = "<other_results>\n<other_result>\n<name>" + a_results[0].name +
                     "</name>\n</other_result>\n</other_results>\n";
  EXPECT_TRUE(rpc(host, held).result_aborts.empty()) << "a live job is not aborted";
  ASSERT_TRUE(cancel_graph(*db_, g, now_).ok());
  run_daemons();
  auto reply = rpc(host, held);
  ASSERT_EQ(reply.result_aborts.size(), 1u);
  EXPECT_EQ(reply.result_aborts[0], a_results[0].name);
}

TEST_F(GraphPipeline, LostIntermediateOutputIsRecomputed) {
  int64_t g = diamond("lost");
  run_daemons();
  work(g, 11, {"a", "b", "e"});
  run_daemons();
  work(g, 12, {"c"});
  run_daemons();
  ASSERT_EQ(state(g, "c"), S::Finished);
  ASSERT_EQ(state(g, "a"), S::Freed);
  // d's inputs: c (FINISHED) and e. Lose c's output before d is made READY: e's job done
  // first, so take d back to "waiting" by losing c while d is still UNSCHEDULED.
  ASSERT_EQ(state(g, "d"), S::Ready) << "d became ready in the same round";
  int64_t c_first_wu = operand(g, "c").workunitid;
  std::filesystem::remove(download_path(operand(g, "c").output_file + ".in"));
  std::filesystem::remove(upload_path(operand(g, "c").output_file));
  // d's host cannot download c's output.
  auto d_results = results_of(g, "d");
  send(d_results[0], 13);
  ResultReport download_failed;
  download_failed.outcome = Outcome::ClientError;
  download_failed.client_state = ClientState::Downloading;
  download_failed.exit_status = -161;
  report(fetch_result(*db_, d_results[0].id).value(), 13, download_failed);
  run_daemons();
  OperandRow c = operand(g, "c");
  EXPECT_NE(c.workunitid, c_first_wu) << "c runs again";
  EXPECT_EQ(c.runs, 2);
  EXPECT_EQ(state(g, "a"), S::Ready) << "a was freed: it runs again too";
  EXPECT_EQ(state(g, "b"), S::Ready);
  EXPECT_EQ(state(g, "d"), S::Unscheduled) << "d is held";
  EXPECT_EQ(operand(g, "d").runs, 2) << "d restarts";
  EXPECT_EQ(state(g, "e"), S::Finished) << "e's output is intact";
  expect_clean();
  while (work(g, 14) > 0) run_daemons();
  EXPECT_EQ(graph_state(g), GraphState::Done);
  EXPECT_DOUBLE_EQ(value_of(g, "d"), 7.0);
  expect_settled_and_clean();
}

TEST_F(GraphPipeline, OutputLostBeforeTheSuccessorIsReadyIsRecomputed) {
  int64_t g = diamond("lost_early");
  run_daemons();
  work(g, 11, {"a", "b"});
  run_daemons();
  work(g, 12, {"c"});
  run_daemons();
  ASSERT_EQ(state(g, "c"), S::Finished);
  ASSERT_EQ(state(g, "d"), S::Unscheduled) << "e has not run";
  std::filesystem::remove(upload_path(operand(g, "c").output_file));
  work(g, 13, {"e"});
  run_daemons();
  EXPECT_EQ(operand(g, "c").runs, 2) << "c runs again";
  EXPECT_EQ(operand(g, "d").runs, 1) << "d was only held";
  while (work(g, 14) > 0) run_daemons();
  EXPECT_EQ(graph_state(g), GraphState::Done);
  EXPECT_DOUBLE_EQ(value_of(g, "d"), 7.0);
  expect_settled_and_clean();
}

TEST_F(GraphPipeline, CorruptIntermediateOutputFailsItsChecksumAndIsRecomputed) {
  int64_t g = diamond("corrupt");
  run_daemons();
  work(g, 11, {"a", "b"});
  run_daemons();
  work(g, 12, {"c"});
  run_daemons();
  ASSERT_EQ(state(g, "d"), S::Unscheduled) << "e has not run";
  ASSERT_TRUE(write_text_file(upload_path(operand(g, "c").output_file), number_text(1000)).ok());
  work(g, 13, {"e"});
  run_daemons();
  EXPECT_EQ(operand(g, "c").runs, 2) << "c's output fails its md5: c runs again";
  while (work(g, 14) > 0) run_daemons();
  EXPECT_EQ(graph_state(g), GraphState::Done);
  EXPECT_DOUBLE_EQ(value_of(g, "d"), 7.0) << "the corrupt value was not used";
  expect_settled_and_clean();
}

// Issue 13: an output swapped after its workunit was assimilated, before the graph
// scheduler records it, is never a successor's input: it is treated as lost and recomputed.
TEST_F(GraphPipeline, OutputSwappedAfterAssimilationIsNotRecordedAndIsRecomputed) {
  int64_t g = diamond("swapped");
  run_daemons();
  work(g, 11, {"a", "b"});
  run_daemons();
  work(g, 12, {"c"});
  // The back end without the graph scheduler: c is validated and assimilated, not recorded.
  ASSERT_TRUE(testing::run_daemons_until_idle(*db_, project_.config(), now_));
  ASSERT_EQ(fetch_workunit(*db_, operand(g, "c").workunitid)->assimilate_state, AssimilateState::Done);
  ASSERT_NE(state(g, "c"), S::Finished) << "not recorded yet";
  const std::string c_output =
      upload_path(file_infos_in(results_of(g, "c").front().xml_doc_in)->front().name);
  ASSERT_TRUE(write_text_file(c_output, number_text(1000)).ok());
  run_daemons();
  EXPECT_EQ(operand(g, "c").output_md5, "") << "the swapped bytes were recorded as c's output";
  while (work(g, 14) > 0) run_daemons();
  EXPECT_EQ(graph_state(g), GraphState::Done);
  EXPECT_EQ(operand(g, "c").runs, 2) << "c runs again";
  EXPECT_DOUBLE_EQ(value_of(g, "d"), 7.0) << "the swapped value was not used";
  expect_settled_and_clean();
}

// The demo's lost operand input (a host's download of an operand's input "not found on the
// server"). c's promotion finds a's output already staged for its sibling b and reuses it;
// while it waits for c's workunit row, the file deleter deletes b's inputs: no workunit
// but b names a's copy yet (c records it only at its commit), so the deleter unlinks it,
// and c used to commit a workunit naming a file no longer in download/.
TEST_F(GraphPipeline, AnInputReusedFromASiblingIsNotLostToTheFileDeleterMeanwhile) {
  int64_t g = sibling_reuse("reuse_race");
  release_deletion(g);
  const int64_t c_wu = operand(g, "c").workunitid;
  // Read on this thread: the fixture's connection is busy on it while the promotion runs.
  const int64_t c_id = operand(g, "c").id;
  std::atomic<bool> promoted{false};
  std::thread promotion;
  testing::while_held_elsewhere(
      [&] { return project_.open(); },
      [&](Database& d) { query_int(d, "SELECT id FROM workunit WHERE id = ? FOR UPDATE", c_wu); },
      [&] {
        promotion = std::thread([&] {
          auto own = project_.open();
          GraphSchedulerPass graphs(project_.config(), 60);
          EXPECT_TRUE(graphs.promote_ready(*own, c_id, now_));
          promoted = true;
        });
        EXPECT_TRUE(testing::statement_waits_or(*db_, promoted))
            << "c's promotion did not wait for its workunit row";
        EXPECT_GE(delete_files(*db_), 1) << "b's inputs were not deleted";
      });
  promotion.join();
  ASSERT_EQ(state(g, "c"), S::Ready);
  auto staged = read_text_file(download_path(staged_input(g)));
  ASSERT_TRUE(staged.ok()) << "c is READY, its input " << staged_input(g) << " is not in download/";
  EXPECT_NE(fetch_workunit(*db_, c_wu)->xml_doc.find("<md5_cksum>" + md5_hex(*staged) + "</md5_cksum>"),
            std::string::npos);
  finish_with_c(g);
}

// The other order: the file deleter reads that nobody but b uses a's copy, then c's
// workunit takes it (its workunit_input row, in a transaction still open), then the
// deleter unlinks it. The deleter now marks the file deleting first, which waits for the
// transaction taking it, and reads the users again: c's, so the copy stays.
TEST_F(GraphPipeline, TheFileDeleterKeepsAnInputAWorkunitIsTakingInAnOpenTransaction) {
  int64_t g = sibling_reuse("taken_race");
  release_deletion(g);
  const std::string input = staged_input(g);
  std::atomic<bool> deleted{false};
  std::thread deleter;
  bool waited = false;
  testing::while_held_elsewhere(
      [&] { return project_.open(); },
      [&](Database& d) { record_workunit_inputs(d, operand(g, "c").workunitid, {input}); },
      [&] {
        deleter = std::thread([&] {
          auto own = project_.open();
          delete_files(*own);
          deleted = true;
        });
        waited = testing::statement_waits_or(*db_, deleted);
      });
  deleter.join();
  EXPECT_TRUE(waited) << "the file deleter did not wait for the workunit taking " << input;
  EXPECT_TRUE(std::filesystem::exists(download_path(input)))
      << input << " unlinked while c's workunit took it";
  EXPECT_EQ(fetch_workunit(*db_, operand(g, "b").workunitid)->file_delete_state, FileDeleteState::Done);
  run_daemons();
  ASSERT_EQ(state(g, "c"), S::Ready);
  finish_with_c(g);
}

// A file deleter killed after committing its decision (the input marked deleting), before
// unlinking: no workunit takes the file meanwhile — c's promotion waits — and the restarted
// deleter unlinks it and drops the mark; c then stages it again from a's output.
TEST_F(GraphPipeline, AnInputAFileDeleterDecidedToDeleteIsNotTakenUntilItIsGone) {
  int64_t g = sibling_reuse("killed_deleter");
  const std::string input = staged_input(g);
  db_->transaction([&](Database& d) { mark_downloads_deleting(d, {{input, operand(g, "b").workunitid}}); });
  GraphSchedulerPass graphs(project_.config(), 60);
  EXPECT_FALSE(graphs.promote_ready(*db_, operand(g, "c").id, now_));
  EXPECT_EQ(state(g, "c"), S::Unscheduled) << "c took an input being deleted";
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM workunit_input WHERE file_name = ? AND workunitid = ?",
                      input, operand(g, "c").workunitid),
            0);
  release_deletion(g);
  EXPECT_GE(delete_files(*db_), 1);
  EXPECT_FALSE(std::filesystem::exists(download_path(input)));
  EXPECT_TRUE(downloads_deleting(*db_, {input}).empty()) << "the mark outlived the unlink";
  EXPECT_TRUE(graphs.promote_ready(*db_, operand(g, "c").id, now_));
  EXPECT_TRUE(std::filesystem::exists(download_path(input))) << "c's input not staged again";
  finish_with_c(g);
}

TEST_F(GraphPipeline, BadGraphsAreRefused) {
  GraphSubmission g;
  g.name = "bad";
  g.job.appid = project_.appid();
  g.job.output_template_file = project_.output_template();
  EXPECT_FALSE(submit_graph(*db_, project_.config(), g, now_).ok()) << "empty";
  g.operands = {op("a", "const 1", {1}), op("b", "const 2")};
  EXPECT_FALSE(submit_graph(*db_, project_.config(), g, now_).ok()) << "forward input";
  g.operands = {op("a", "const 1"), op("a", "const 2")};
  EXPECT_FALSE(submit_graph(*db_, project_.config(), g, now_).ok()) << "duplicate operand";
  g.name = "../x";
  g.operands = {op("a", "const 1")};
  EXPECT_FALSE(submit_graph(*db_, project_.config(), g, now_).ok()) << "unsafe name";
  g.name = "once";
  EXPECT_TRUE(submit_graph(*db_, project_.config(), g, now_).ok());
  EXPECT_FALSE(submit_graph(*db_, project_.config(), g, now_).ok()) << "duplicate graph";
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM graph"), 1);
}

}  // namespace
}  // namespace tharsis::graph_pipeline_test
