// The client's side of the scheduler RPC as pure functions: the scheduler URL on a master
// page, how much work to ask for and when, the request it builds (reports and
// other_results), and how a reply changes the state (new work, acks, aborts, host id,
// code signing key, request_delay and back-off); and simulated host specs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "client/lib/client_errors.h"
#include "client/lib/scheduler_exchange.h"
#include "client/lib/simulated_host.h"
#include "lib/protocol/client_side.h"

namespace tharsis {
namespace {

ClientResult result(const std::string& name, TaskState state) {
  ClientResult r;
  r.name = name;
  r.wu_name = name + "_wu";
  r.platform = "x86_64-pc-linux-gnu";
  r.version_num = 100;
  r.state = state;
  r.file_refs = {{name + "_0", "out", false, true}};
  return r;
}

SchedulerReply reply_with_one_job() {
  SchedulerReply reply;
  reply.hostid = 17;
  reply.request_delay = 30;
  reply.code_sign_key = "1024\nabcd\n.\n";
  reply.file_infos = {
      ReplyFileInfo{"app", {"http://x/app"}, {}, "m", 10, 0, true, false, false, "sig", ""},
      ReplyFileInfo{"w.in", {"http://x/w.in"}, {}, "m2", 5, 0, false, false, false, "", ""},
      ReplyFileInfo{"r_0", {}, {"http://x/up"}, "", 0, 1000, false, false, false, "", "cert"}};
  reply.app_versions = {
      ReplyAppVersion{"example", 100, "x86_64-pc-linux-gnu", "", "", 1, 0, "", {{"app", "", true}}}};
  reply.workunits = {ReplyWorkunit{"w", "example", 100, "", 1e9, 0, 0, 0, {{"w.in", "in"}}}};
  reply.results = {
      ReplyResult{"r", "w", 1700000000, "x86_64-pc-linux-gnu", "", 100, false, {{"r_0", "out"}}}};
  return reply;
}

TEST(ClientExchange, SchedulerUrlFromEitherMasterPageForm) {
  using Urls = std::vector<std::string>;
  EXPECT_EQ(*find_scheduler_urls("<html><!-- <scheduler>http://h/p_cgi/cgi</scheduler> --></html>"),
            Urls{"http://h/p_cgi/cgi"});
  EXPECT_EQ(*find_scheduler_urls("<head><link rel=\"stylesheet\" href=\"a.css\">"
                                 "<link rel=\"boinc_scheduler\" href=\"http://h/cgi\"></head>"),
            Urls{"http://h/cgi"});
  auto none = find_scheduler_urls("<html>no scheduler here</html>");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("boinc_scheduler"), std::string::npos);
}

TEST(ClientExchange, EverySchedulerOfThePageOnceInPageOrder) {
  auto urls = find_scheduler_urls(
      "<link rel=\"boinc_scheduler\" href=\"http://a/cgi\"><link rel=\"boinc_scheduler\" "
      "href=\"http://b/cgi\">"
      "<!-- <scheduler>http://a/cgi</scheduler> --><!-- <scheduler> http://c/cgi </scheduler> -->");
  ASSERT_TRUE(urls.ok()) << urls.error();
  EXPECT_EQ(*urls, (std::vector<std::string>{"http://a/cgi", "http://c/cgi", "http://b/cgi"}));
}

TEST(ClientExchange, HostsSpreadOverSchedulersAndAFailedRpcMovesToTheNext) {
  const std::vector<std::string> urls{"http://a/cgi", "http://b/cgi", "http://c/cgi"};
  std::map<std::string, int> hosts_per_scheduler;
  for (int i = 0; i < 300; ++i) {
    HostState host;
    host.host_cpid = "cpid" + std::to_string(i * 7919);
    set_schedulers(host, urls);
    ++hosts_per_scheduler[host.scheduler_url];
    HostState same = host;
    set_schedulers(same, urls);
    EXPECT_EQ(same.scheduler_url, host.scheduler_url) << "a host keeps its scheduler";
  }
  ASSERT_EQ(hosts_per_scheduler.size(), 3u);
  for (const auto& [url, count] : hosts_per_scheduler) EXPECT_GT(count, 60) << url;

  HostState state;
  set_schedulers(state, urls);
  RpcPolicy policy;
  std::set<std::string> tried{state.scheduler_url};
  note_failed_rpc(state, policy, 100);
  tried.insert(state.scheduler_url);
  note_failed_rpc(state, policy, 100);
  tried.insert(state.scheduler_url);
  EXPECT_EQ(tried.size(), 3u) << "three failures visit the three schedulers";
  HostState single;
  set_schedulers(single, {"http://only/cgi"});
  note_failed_rpc(single, policy, 100);
  EXPECT_EQ(single.scheduler_url, "http://only/cgi");
}

TEST(ClientExchange, AsksForWorkToFillTheBufferAndNotBeforeNextRpcTime) {
  HostState state;
  HostDescription host;
  host.ncpus = 2;
  RpcPolicy policy;  // 2 per CPU: a buffer of 4
  EXPECT_GT(work_request_seconds(state, host, policy), 0);
  EXPECT_LT(work_request_seconds(state, host, policy), 0.01)
      << "no estimate yet: a token request (one result)";
  state.fpops_estimate = 2e9;  // 2 s on this host: 3 results' worth over 2 CPUs and a token asks for 4
  EXPECT_DOUBLE_EQ(work_request_seconds(state, host, policy), 3.001);
  state.results.push_back(result("running0", TaskState::Running));
  state.results.push_back(result("running1", TaskState::Running));
  state.results.push_back(result("running2", TaskState::Running));
  EXPECT_DOUBLE_EQ(work_request_seconds(state, host, policy), 0.001) << "one missing: a token, one result";
  state.results.clear();
  EXPECT_TRUE(wants_scheduler_rpc(state, host, policy, 100));
  state.next_rpc_time = 101;
  EXPECT_FALSE(wants_scheduler_rpc(state, host, policy, 100));
  state.next_rpc_time = 0;
  for (int i = 0; i < 4; ++i) state.results.push_back(result("r" + std::to_string(i), TaskState::Running));
  EXPECT_EQ(work_request_seconds(state, host, policy), 0);
  EXPECT_FALSE(wants_scheduler_rpc(state, host, policy, 100)) << "buffer full, nothing to report";
  state.results[0].state = TaskState::Done;
  EXPECT_TRUE(wants_scheduler_rpc(state, host, policy, 100)) << "a finished result is reported at once";
}

TEST(ClientExchange, RequestReportsDoneResultsAndListsTheOthers) {
  HostState state;
  state.authenticator = "key";
  state.hostid = 9;
  state.rpc_seqno = 4;
  state.host_cpid = "cpid";
  state.code_sign_key = "1024\nabcd\n.";
  ClientFile out;
  out.name = "done_0";
  out.nbytes = 12;
  out.max_nbytes = 1000;
  out.md5_cksum = "0123";
  state.files = {out};
  ClientResult done = result("done", TaskState::Done);
  done.report_state = kReportUploaded;
  done.cpu_time = 1.5;
  ClientResult failed = result("failed", TaskState::Done);
  failed.report_state = kReportComputeError;
  failed.exit_status = kErrTooManyCrashes;
  failed.stderr_text = "killed by signal 9";
  state.results = {done, failed, result("running", TaskState::Running), result("acked", TaskState::Reported)};
  HostDescription host;
  SchedulerRequest req = build_scheduler_request(state, host, 2.5, 1000);
  EXPECT_EQ(req.authenticator, "key");
  EXPECT_EQ(req.hostid, 9);
  EXPECT_EQ(req.rpc_seqno, 5);
  EXPECT_EQ(req.host.host_cpid, "cpid");
  EXPECT_EQ(req.work_req_seconds, 2.5);
  ASSERT_EQ(req.results.size(), 2u);
  EXPECT_EQ(req.results[0].name, "done");
  EXPECT_EQ(req.results[0].state, kReportUploaded);
  ASSERT_EQ(req.results[0].output_files.size(), 1u);
  EXPECT_EQ(req.results[0].output_files[0].md5_cksum, "0123");
  EXPECT_EQ(req.results[1].exit_status, kErrTooManyCrashes);
  EXPECT_TRUE(req.results[1].output_files.empty());
  ASSERT_EQ(req.other_results.size(), 1u);
  EXPECT_EQ(req.other_results[0].name, "running");

  // What goes on the wire parses back on the server side to the same request.
  auto parsed = parse_scheduler_request(render_scheduler_request(req), ProtocolLimits{});
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->results.size(), 2u);
  EXPECT_EQ(parsed->results[1].stderr_out.find("killed by signal 9") != std::string::npos, true);
  EXPECT_EQ(parsed->code_sign_key, "1024\nabcd\n.");
}

TEST(ClientExchange, ReplyAddsWorkAdoptsHostIdAndKeyAndHonoursRequestDelay) {
  HostState state;
  RpcPolicy policy;
  ReplyEffects effects = apply_scheduler_reply(state, reply_with_one_job(), policy, 1000);
  EXPECT_EQ(effects.new_results, 1);
  EXPECT_EQ(state.hostid, 17);
  EXPECT_EQ(state.rpc_seqno, 1);
  EXPECT_EQ(state.code_sign_key, "1024\nabcd\n.");
  EXPECT_EQ(state.next_rpc_time, 1030);
  ASSERT_EQ(state.results.size(), 1u);
  EXPECT_EQ(state.results[0].state, TaskState::Downloading);
  ASSERT_NE(state.file("r_0"), nullptr);
  EXPECT_EQ(state.file("r_0")->xml_signature, "cert");
  EXPECT_TRUE(state.file("app")->executable);
  // The same reply again (a resend) duplicates nothing; a later key is not adopted.
  SchedulerReply again = reply_with_one_job();
  again.code_sign_key = "1024\nffff\n.\n";
  apply_scheduler_reply(state, again, policy, 1000);
  EXPECT_EQ(state.results.size(), 1u);
  EXPECT_EQ(state.files.size(), 3u);
  EXPECT_EQ(state.code_sign_key, "1024\nabcd\n.");
}

TEST(ClientExchange, WorkRequestsAreSizedByTheSmallestJobSeen) {
  HostState state;
  HostDescription host;  // 1 CPU, 1e9 FLOPS
  RpcPolicy policy;      // 2 per CPU
  SchedulerReply big = reply_with_one_job();
  big.workunits[0].rsc_fpops_est = 20e9;
  apply_scheduler_reply(state, big, policy, 1000);
  EXPECT_EQ(state.fpops_estimate, 20e9);
  SchedulerReply small = reply_with_one_job();
  small.workunits[0].name = "w_small";
  small.workunits[0].rsc_fpops_est = 1e9;
  apply_scheduler_reply(state, small, policy, 1000);
  SchedulerReply big_again = reply_with_one_job();
  big_again.workunits[0].name = "w_big_again";
  big_again.workunits[0].rsc_fpops_est = 20e9;
  apply_scheduler_reply(state, big_again, policy, 1000);
  // A request sized by a 20 s job would ask for 20 s when two results are missing and
  // receive up to 20 jobs of 1 s; sized by the smallest it asks for 1 s and a token.
  EXPECT_EQ(state.fpops_estimate, 1e9);
  state.results.clear();
  EXPECT_DOUBLE_EQ(work_request_seconds(state, host, policy), 1.001);
}

TEST(ClientExchange, RequestDelayIsCappedByPolicy) {
  HostState state;
  RpcPolicy policy;
  policy.max_request_delay = 0;
  apply_scheduler_reply(state, reply_with_one_job(), policy, 1000);
  EXPECT_EQ(state.next_rpc_time, 1000);
}

TEST(ClientExchange, AckForgetsResultAndItsFilesButKeepsAppFiles) {
  HostState state;
  RpcPolicy policy;
  apply_scheduler_reply(state, reply_with_one_job(), policy, 1000);
  state.results[0].state = TaskState::Done;
  SchedulerReply ack;
  ack.result_acks = {"r"};
  ReplyEffects effects = apply_scheduler_reply(state, ack, policy, 1001);
  EXPECT_EQ(effects.acked, 1);
  EXPECT_TRUE(state.results.empty());
  EXPECT_TRUE(state.workunits.empty());
  EXPECT_NE(state.file("app"), nullptr) << "app version files stay for the next workunit";
  EXPECT_EQ(state.file("w.in"), nullptr);
  EXPECT_EQ(effects.files_to_delete, (std::vector<std::string>{"w.in", "r_0"}));
}

TEST(ClientExchange, AbortEndsRunningResultAndKillsItsProcess) {
  HostState state;
  RpcPolicy policy;
  apply_scheduler_reply(state, reply_with_one_job(), policy, 1000);
  state.results[0].state = TaskState::Running;
  state.results[0].pid = 555;
  SchedulerReply abort;
  abort.result_aborts = {"r", "unknown"};
  ReplyEffects effects = apply_scheduler_reply(state, abort, policy, 1001);
  EXPECT_EQ(effects.aborted, 1);
  EXPECT_EQ(effects.pids_to_kill, std::vector<int>{555});
  EXPECT_EQ(state.results[0].state, TaskState::Done);
  EXPECT_EQ(state.results[0].report_state, kReportAborted);
  EXPECT_EQ(state.results[0].exit_status, kErrAbortedByProject);
}

TEST(ClientExchange, AbortIfNotStartedSparesRunningResults) {
  HostState state;
  RpcPolicy policy;
  apply_scheduler_reply(state, reply_with_one_job(), policy, 1000);
  state.results[0].state = TaskState::Running;
  SchedulerReply abort;
  abort.result_aborts_if_not_started = {"r"};
  EXPECT_EQ(apply_scheduler_reply(state, abort, policy, 1001).aborted, 0);
  EXPECT_EQ(state.results[0].state, TaskState::Running);
}

TEST(ClientExchange, UnproductiveAndFailedRpcsBackOffDoubling) {
  HostState state;
  RpcPolicy policy;
  policy.min_backoff = 1;
  policy.max_backoff = 5;
  SchedulerReply nothing;
  apply_scheduler_reply(state, nothing, policy, 100);
  EXPECT_EQ(state.next_rpc_time, 101);
  apply_scheduler_reply(state, nothing, policy, 100);
  EXPECT_EQ(state.next_rpc_time, 102);
  note_failed_rpc(state, policy, 100);
  EXPECT_EQ(state.next_rpc_time, 104);
  note_failed_rpc(state, policy, 100);
  EXPECT_EQ(state.next_rpc_time, 105) << "capped at max_backoff";
  apply_scheduler_reply(state, reply_with_one_job(), policy, 200);
  EXPECT_EQ(state.rpc_failures, 0);
}

TEST(SimulatedHost, SpecParsesEveryKeyAndRejectsBadOnes) {
  auto spec = parse_simulated_host(
      "auth=k1,ncpus=2,task_failure=0.1,job_failure=0.2,garbage=1,vanish_after=5,"
      "slowness=3,seed=9");
  ASSERT_TRUE(spec.ok()) << spec.error();
  EXPECT_EQ(spec->authenticator, "k1");
  EXPECT_EQ(spec->ncpus, 2);
  EXPECT_EQ(spec->faults.task_failure_rate, 0.1);
  EXPECT_EQ(spec->faults.job_failure_rate, 0.2);
  EXPECT_EQ(spec->faults.garbage_rate, 1);
  EXPECT_EQ(spec->faults.vanish_after_seconds, 5);
  EXPECT_EQ(spec->faults.slowness, 3);
  EXPECT_EQ(spec->seed, 9u);
  EXPECT_TRUE(parse_simulated_host("").ok());
  for (const char* bad :
       {"garbage=2", "task_failure=nan", "colour=blue", "ncpus", "slowness=0.5", "ncpus=x"}) {
    EXPECT_FALSE(parse_simulated_host(bad).ok()) << bad;
  }
}

TEST(SimulatedHost, InjectChoosesWhoInjectsFaultsAndTaskSecondsNeedsTheApp) {
  EXPECT_EQ(parse_simulated_host("task_failure=0.1")->inject, FaultInjection::Client);
  EXPECT_EQ(parse_simulated_host("inject=client")->inject, FaultInjection::Client);
  auto app = parse_simulated_host("task_seconds=0.5,inject=app,task_failure=0.05,job_failure=0.02");
  ASSERT_TRUE(app.ok()) << app.error();
  EXPECT_EQ(app->inject, FaultInjection::App);
  EXPECT_EQ(app->task_seconds, 0.5);
  EXPECT_EQ(app->faults.task_failure_rate, 0.05);
  EXPECT_EQ(parse_simulated_host("inject=app")->task_seconds, 0);
  for (const char* bad :
       {"inject=server", "inject=", "inject=App", "task_seconds=0.5", "inject=client,task_seconds=1",
        "inject=app,task_seconds=-1", "inject=app,task_seconds=3601", "inject=app,task_seconds=inf"}) {
    auto spec = parse_simulated_host(bad);
    ASSERT_FALSE(spec.ok()) << bad;
    EXPECT_NE(spec.error().find(std::string(bad).find("task_seconds") != std::string::npos ? "task_seconds"
                                                                                           : "inject"),
              std::string::npos)
        << spec.error();
  }
}

}  // namespace
}  // namespace tharsis
