// tharsis-client's state file: everything survives a render/parse round trip, malformed
// files are clear errors, a missing file is a fresh client; and the task restart rule.
#include "client/lib/client_state.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "client/lib/task_process.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

HostState full_state() {
  HostState s;
  s.project_url = "http://127.0.0.1:8080/test/";
  s.scheduler_url = "http://127.0.0.1:8080/test_cgi/cgi";
  s.scheduler_urls = {"http://127.0.0.1:8081/test_cgi/cgi", s.scheduler_url};
  s.authenticator = "key & <odd>";
  s.project_name = "Test";
  s.hostid = 42;
  s.rpc_seqno = 7;
  s.host_cpid = "abc123";
  s.code_sign_key = "1024\n00ff\n.";
  s.next_rpc_time = 1700000000.25;
  s.rpc_failures = 2;
  s.fpops_estimate = 3e9;
  ClientFile app;
  app.name = "example_100_x86_64-pc-linux-gnu_example_app";
  app.download_urls = {"http://a/1", "http://b/1"};
  app.md5_cksum = "d41d8cd98f00b204e9800998ecf8427e";
  app.nbytes = 1234;
  app.executable = true;
  app.file_signature = "0a1b\n.\n";
  app.status = ClientFile::Status::Present;
  ClientFile out;
  out.name = "wu_0_0";
  out.upload_urls = {"http://a/file_upload_handler"};
  out.max_nbytes = 65536;
  out.xml_signature = "beef\n.\n";
  out.status = ClientFile::Status::Failed;
  out.failures = 3;
  out.next_attempt = 99.5;
  out.upload_started = true;
  out.error = "refused";
  s.files = {app, out};
  s.app_versions = {{"example", 100, "x86_64-pc-linux-gnu", "", "--fast", {{app.name, "", true, false}}}};
  s.workunits = {{"wu", "example", 100, "-n 3", 1e9, {{"wu.in", "in", false, false}}}};
  ClientResult r;
  r.name = "wu_0";
  r.wu_name = "wu";
  r.platform = "x86_64-pc-linux-gnu";
  r.version_num = 100;
  r.report_deadline = 1700003600;
  r.received_time = 1700000000.125;
  r.file_refs = {{"wu_0_0", "out", false, true}};
  r.state = TaskState::Uploading;
  r.report_state = kReportUploaded;
  r.exit_status = -3;
  r.restarts = 2;
  r.runs = 3;
  r.pid = 4321;
  r.run_started = 10.5;
  r.elapsed = 2.25;
  r.cpu_time = 1.5;
  r.hold_until = 12;
  r.stderr_text = "run 1 killed by signal 9; restarting\n";
  s.results = {r};
  return s;
}

TEST(ClientState, RoundTripKeepsEveryField) {
  HostState s = full_state();
  auto parsed = parse_client_state(render_client_state(s));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(*parsed, s);
}

TEST(ClientState, EveryTaskStateRoundTrips) {
  for (int t = 0; t <= static_cast<int>(TaskState::Reported); ++t) {
    HostState s = full_state();
    s.results[0].state = static_cast<TaskState>(t);
    auto parsed = parse_client_state(render_client_state(s));
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    EXPECT_EQ(parsed->results[0].state, s.results[0].state) << task_state_name(s.results[0].state);
  }
}

TEST(ClientState, MalformedFilesAreClearErrors) {
  EXPECT_FALSE(parse_client_state("<tharsis_client_state><hostid>1</hostid>").ok());
  EXPECT_FALSE(parse_client_state("<other/>").ok());
  auto bad_number = parse_client_state("<tharsis_client_state><hostid>x1</hostid></tharsis_client_state>");
  ASSERT_FALSE(bad_number.ok());
  EXPECT_NE(bad_number.error().find("<hostid>"), std::string::npos) << bad_number.error();
  auto bad_state = parse_client_state(
      "<tharsis_client_state><result><name>r</name><task_state>flying</task_state></result></"
      "tharsis_client_state>");
  ASSERT_FALSE(bad_state.ok());
  EXPECT_NE(bad_state.error().find("task state"), std::string::npos) << bad_state.error();
}

TEST(ClientState, SaveAndLoadThroughTheDataDir) {
  std::string path = (std::filesystem::temp_directory_path() / "tharsis-client-state-XXXXXX").string();
  ASSERT_NE(mkdtemp(path.data()), nullptr);
  struct Dir {
    std::string p;
    const std::string& path() const { return p; }
    ~Dir() { std::filesystem::remove_all(p); }
  } dir{path};
  auto fresh = load_client_state(dir.path());
  ASSERT_TRUE(fresh.ok()) << fresh.error();
  EXPECT_EQ(*fresh, HostState{});
  ASSERT_TRUE(save_client_state(dir.path(), full_state()).ok());
  auto loaded = load_client_state(dir.path());
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(*loaded, full_state());
  ASSERT_TRUE(write_text_file(dir.path() + "/client_state.xml", "<tharsis_client_state>").ok());
  auto broken = load_client_state(dir.path());
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().find("client_state.xml"), std::string::npos) << broken.error();
}

TEST(TaskRestarts, CrashIsRestartedUpToTheLimitThenFails) {
  ProcessExit crash;
  crash.signalled = true;
  crash.signal = 9;
  EXPECT_EQ(judge_run(crash, 0, 3), RunVerdict::Restart);
  EXPECT_EQ(judge_run(crash, 2, 3), RunVerdict::Restart);
  EXPECT_EQ(judge_run(crash, 3, 3), RunVerdict::Failed);
  EXPECT_EQ(judge_run(crash, 0, 0), RunVerdict::Failed);
}

TEST(TaskRestarts, AppErrorExitIsNotRestarted) {
  ProcessExit error;
  error.exit_code = 1;
  EXPECT_EQ(judge_run(error, 0, 3), RunVerdict::Failed);
  ProcessExit success;
  EXPECT_EQ(judge_run(success, 2, 3), RunVerdict::Success);
}

}  // namespace
}  // namespace tharsis
