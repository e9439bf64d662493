// The stock BOINC client (Debian boinc-client 7.20, unchanged) against a Tharsis project
// served by a private Apache on 127.0.0.1, with the real daemons running: it attaches by
// authenticator, gets a job of the example app built against BOINC's API
// (example_app_boinc, published with add_app's code), computes it, uploads and reports;
// the workunit is validated and assimilated and the host row holds this machine's real
// host info. A job cancelled while the client runs it is aborted by the client, which
// reports it as aborted. Skipped only where /usr/bin/boinc is not installed.
#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>

#include "client/lib/example_kernel.h"
#include "db/host_store.h"
#include "db/result_store.h"
#include "db/workunit_store.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "tests/support/child_process.h"
#include "tests/support/stock_boinc_client.h"
#include "tests/support/test_web_server.h"
#include "tools/lib/accounts.h"
#include "tools/lib/app_admin.h"
#include "tools/lib/cancel_work.h"

namespace tharsis::boinc_client_test {
namespace {

using testing::ChildProcess;
using testing::StockBoincClient;

// A failure guard, not a timing check: the client's own pacing (RPC, transfers and task
// polling at about one-second steps) takes 20-40 s per job here.
constexpr double kPatienceSeconds = 240;

bool eventually(const std::function<bool()>& condition) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kPatienceSeconds);
  while (std::chrono::steady_clock::now() < until) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return condition();
}

class StockBoincClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!StockBoincClient::installed()) {
      GTEST_SKIP() << "the stock BOINC client is not installed (" << StockBoincClient::kClient
                   << "; Debian package boinc-client)";
    }
    app_ = testing::built_programs_dir() + "/example_app_boinc";
    ASSERT_TRUE(std::filesystem::exists(app_))
        << app_ << " was not built: install libboinc-app-dev and re-run cmake";
    port_ = testing::free_local_port();
    project_ = std::make_unique<testing::TestProject>("http://127.0.0.1:" + std::to_string(port_) + "/");
    db_ = project_->open();
    auto account = create_account(*db_, "volunteer", "volunteer@example.org", std::time(nullptr));
    ASSERT_TRUE(account.ok()) << account.error();
    authenticator_ = account->authenticator;
    auto version =
        publish_app_version(*db_, project_->config(), {"example", "x86_64-pc-linux-gnu", 100, {app_}});
    ASSERT_TRUE(version.ok()) << version.error();
    server_ = std::make_unique<testing::TestWebServer>(*project_, port_);
    for (const char* daemon : {"transitioner", "validator", "assimilator"}) {
      daemons_.push_back(std::make_unique<ChildProcess>(
          daemon, std::vector<std::string>{"--project_dir", project_->config().project_dir, "--sleep", "0.2"},
          project_->config().log_dir + "/" + daemon + ".log"));
    }
    client_ = std::make_unique<StockBoincClient>(project_->dir() + "/boinc_client");
  }

  void TearDown() override {
    if (HasFailure() && client_) std::cerr << "--- BOINC client log ---\n" << client_->log();
    keep_sched_xml("last");
  }

  // Seeds for the fuzz corpora (fuzz/, docs/fuzzing.md): the client keeps its last
  // scheduler request and our last reply as sched_request_*.xml / sched_reply_*.xml in its
  // data dir; with THARSIS_KEEP_SCHED_XML=DIR set they are copied to DIR as
  // <test name>.<stage>.sched_request.xml and .sched_reply.xml.
  void keep_sched_xml(const std::string& stage) {
    const char* keep = std::getenv("THARSIS_KEEP_SCHED_XML");
    if (!keep || !client_) return;
    const std::string to = keep;
    const std::string test =
        ::testing::UnitTest::GetInstance()->current_test_info()->name() + std::string(".") + stage;
    std::error_code ec;
    std::filesystem::create_directories(to, ec);
    for (const auto& entry : std::filesystem::directory_iterator(client_->dir(), ec)) {
      const std::string name = entry.path().filename().string();
      for (const char* kind : {"sched_request", "sched_reply"}) {
        if (name.rfind(std::string(kind) + "_", 0) == 0) {
          std::filesystem::copy_file(entry.path(), to + "/" + test + "." + kind + ".xml",
                                     std::filesystem::copy_options::overwrite_existing, ec);
        }
      }
    }
  }

  // One workunit of the example app; returns its name.
  std::string submit(const std::string& name, const std::string& input, double fpops_est) {
    JobSpec job;
    job.name = name;
    job.appid = project_->appid();
    job.inputs = {InputFile{name + ".in", "in", input, false}};
    job.output_template_file = project_->output_template();
    job.delay_bound = 3600;
    job.rsc_fpops_est = fpops_est;
    job.rsc_fpops_bound = fpops_est * 1000;
    auto id = create_workunit(*db_, project_->config(), job, std::time(nullptr));
    EXPECT_TRUE(id.ok()) << id.error();
    return name;
  }

  void attach() {
    ASSERT_EQ(client_->attach(project_->config().master_url, authenticator_), 0)
        << "boinccmd --project_attach failed";
  }

  std::optional<ResultRow> only_result_of(const std::string& wu_name) {
    auto wu = fetch_workunit_by_name(*db_, wu_name);
    if (!wu) return std::nullopt;
    auto results = fetch_results_of_workunit(*db_, wu->id);
    if (results.size() != 1) return std::nullopt;
    return results.front();
  }

  std::string app_;
  int port_ = 0;
  std::unique_ptr<testing::TestProject> project_;
  std::unique_ptr<Database> db_;
  std::string authenticator_;
  std::unique_ptr<testing::TestWebServer> server_;
  std::vector<std::unique_ptr<ChildProcess>> daemons_;
  std::unique_ptr<StockBoincClient> client_;
};

TEST_F(StockBoincClientTest, AttachesComputesUploadsReportsAndTheWorkunitIsAssimilated) {
  const std::string input = "seed stock BOINC client\niterations 5000\nterms 100000\n";
  std::string wu_name = submit("stock_client_job", input, 1e9);
  attach();

  ASSERT_TRUE(eventually([&] {
    auto wu = fetch_workunit_by_name(*db_, wu_name);
    return wu && wu->assimilate_state == AssimilateState::Done;
  })) << "the workunit was not assimilated";

  auto result = only_result_of(wu_name);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->outcome, Outcome::Success);
  EXPECT_EQ(result->client_state, ClientState::Uploaded);
  EXPECT_EQ(result->exit_status, 0);
  EXPECT_EQ(result->validate_state, ValidateState::Valid);
  auto wu = fetch_workunit_by_name(*db_, wu_name);
  EXPECT_EQ(wu->canonical_resultid, result->id);
  EXPECT_EQ(wu->error_mask, 0);

  // What the client computed and uploaded is what the kernel gives for this input.
  auto job = parse_example_input(input);
  ASSERT_TRUE(job.ok());
  auto stored =
      read_text_file(project_->config().project_dir + "/results/" + wu_name + "/" + result->name + "_0");
  ASSERT_TRUE(stored.ok()) << stored.error();
  EXPECT_EQ(*stored, run_example_job(*job));

  // The host row holds this machine, as the client measured it.
  auto host = fetch_host(*db_, result->hostid);
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(host->p_ncpus, sysconf(_SC_NPROCESSORS_ONLN));
  char hostname[256] = {};
  gethostname(hostname, sizeof hostname - 1);
  EXPECT_EQ(host->domain_name, hostname);
  utsname uts{};
  uname(&uts);
  EXPECT_NE(host->os_name.find("Linux"), std::string::npos) << host->os_name;
  EXPECT_NE(host->os_version.find(uts.release), std::string::npos) << host->os_version;
  double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  EXPECT_NEAR(host->m_nbytes, memory, memory * 0.1);
  EXPECT_GT(host->d_total, 0);
  EXPECT_FALSE(host->host_cpid.empty());
  EXPECT_FALSE(host->p_model.empty());
  EXPECT_EQ(host->platform_name, "x86_64-pc-linux-gnu");

  // Nothing in our replies made the client complain. (It logs the ack after handling the
  // rest of the reply, and may do so after the daemons have finished.)
  ASSERT_TRUE(eventually([&] { return client_->log_contains("got ack for task " + result->name); }))
      << "the client did not take the acknowledgement";
  EXPECT_FALSE(client_->log_contains("Missing code sign key signature"));
  EXPECT_FALSE(client_->log_contains("Generated new computer cross-project ID"));
  EXPECT_FALSE(client_->log_contains("Signature verification failed"));
}

TEST_F(StockBoincClientTest, JobCancelledInFlightIsAbortedByTheClient) {
  // Long enough that it is still running when cancelled (10^9 hash rounds: minutes).
  std::string wu_name = submit("stock_client_long_job", "seed cancel me\niterations 1000000000\n", 1e12);
  attach();
  std::optional<ResultRow> sent;
  ASSERT_TRUE(eventually([&] {
    sent = only_result_of(wu_name);
    return sent && client_->log_contains("Starting task " + sent->name);
  })) << "the client did not start the job";
  keep_sched_xml("work_sent");  // the reply that sent the job (fuzz seeds)

  auto cancelled = cancel_workunits(*db_, {wu_name}, std::time(nullptr));
  ASSERT_TRUE(cancelled.ok()) << cancelled.error();
  EXPECT_EQ(cancelled->cancelled, 1);
  ASSERT_EQ(client_->update(project_->config().master_url), 0) << "boinccmd --project URL update failed";

  ASSERT_TRUE(eventually([&] {
    auto r = only_result_of(wu_name);
    return r && r->server_state == ServerState::Over;
  })) << "the aborted result was not reported";
  auto result = only_result_of(wu_name);
  EXPECT_EQ(result->outcome, Outcome::ClientError);
  EXPECT_EQ(result->client_state, ClientState::Aborted);
  EXPECT_EQ(result->exit_status, 202);  // BOINC's EXIT_ABORTED_BY_PROJECT
  EXPECT_GT(result->received_time, 0);

  ASSERT_TRUE(eventually([&] {
    auto wu = fetch_workunit_by_name(*db_, wu_name);
    return wu && wu->assimilate_state == AssimilateState::Done;
  })) << "the cancelled workunit was not retired";
  auto wu = fetch_workunit_by_name(*db_, wu_name);
  EXPECT_NE(wu->error_mask & kWuErrorCancelled, 0);
  EXPECT_EQ(wu->canonical_resultid, 0);
}

}  // namespace
}  // namespace tharsis::boinc_client_test
