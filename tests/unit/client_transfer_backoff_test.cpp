// When tharsis-client retries a failed file transfer and when it gives up: the pure rule
// (delays grow, randomised, capped; the last try and the give-up at the deadline margin),
// and HostClient driven with injected time against a port nobody listens on: an upload is
// retried far past the old limit of 5 failures, without waiting in step(), and is given
// up (a client error) only once the report deadline is near; a permanent refusal ends it
// at once; downloads likewise, each result by its own deadline, a shared file going on
// for the results still in time.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "client/lib/client_errors.h"
#include "client/lib/host_client.h"
#include "client/lib/scheduler_exchange.h"
#include "client/lib/transfer_backoff.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

TEST(TransferBackoff, DelaysGrowAreRandomisedAndCapped) {
  TransferRetryPolicy policy;
  policy.first_delay = 1;
  policy.max_delay = 60;
  EXPECT_DOUBLE_EQ(transfer_retry_delay(policy, 1, 0), 0.5);
  EXPECT_DOUBLE_EQ(transfer_retry_delay(policy, 1, 0.999999), 1 * (0.5 + 0.5 * 0.999999));
  EXPECT_DOUBLE_EQ(transfer_retry_delay(policy, 4, 0), 4);
  // Below the cap, whatever the draws, a wait is never shorter than the one before (the
  // ranges [d/2, d] abut); from the cap on, every wait is within [cap/2, cap].
  for (int n = 1; n < 6; ++n) {
    EXPECT_LE(transfer_retry_delay(policy, n, 0.999), transfer_retry_delay(policy, n + 1, 0)) << n;
  }
  for (int n = 1; n < 40; ++n) EXPECT_LE(transfer_retry_delay(policy, n, 0.999), 60) << n;
  for (int n = 7; n < 40; ++n) EXPECT_GE(transfer_retry_delay(policy, n, 0), 30) << n;
  EXPECT_DOUBLE_EQ(transfer_retry_delay(policy, 7, 0.999999), 60 * (0.5 + 0.5 * 0.999999));
  EXPECT_DOUBLE_EQ(transfer_retry_delay(policy, 100000, 0), 30);
  EXPECT_TRUE(std::isfinite(transfer_retry_delay(policy, 1 << 30, 0.5)));
  // Different draws spread hosts that failed together.
  EXPECT_NE(transfer_retry_delay(policy, 3, 0.1), transfer_retry_delay(policy, 3, 0.9));
}

TEST(TransferBackoff, MarginIsAFractionOfTheDelayBoundWithinLimits) {
  TransferRetryPolicy policy;  // 10%, 2 min .. 1 h, at most a quarter of the bound
  EXPECT_DOUBLE_EQ(transfer_report_margin(policy, 3600), 360);
  EXPECT_DOUBLE_EQ(transfer_report_margin(policy, 600), 120);          // at least 2 minutes
  EXPECT_DOUBLE_EQ(transfer_report_margin(policy, 14 * 86400), 3600);  // at most an hour
  EXPECT_DOUBLE_EQ(transfer_report_margin(policy, 12), 3);             // short bounds keep 3/4 to retry
  EXPECT_DOUBLE_EQ(transfer_report_margin(policy, 0), 120);            // unknown bound
  EXPECT_DOUBLE_EQ(transfer_give_up_time(policy, 10000, 6400), 10000 - 360);
  EXPECT_DOUBLE_EQ(transfer_give_up_time(policy, 10000, 0), 10000 - 120);
  EXPECT_TRUE(std::isinf(transfer_give_up_time(policy, 0, 5)));  // no deadline: never give up
}

TEST(TransferBackoff, RetriesUntilTheMarginThenGivesUp) {
  TransferRetryPolicy policy;
  policy.first_delay = 1;
  policy.max_delay = 8;
  double give_up_at = 100, now = 0;
  int failures = 0;
  std::vector<double> waits;
  for (;;) {
    TransferRetry retry = next_transfer_attempt(policy, ++failures, now, give_up_at, 0.5);
    if (retry.give_up) break;
    ASSERT_GT(retry.next_attempt, now);
    ASSERT_LE(retry.next_attempt, give_up_at) << "a retry past the give-up time";
    waits.push_back(retry.next_attempt - now);
    now = retry.next_attempt;
  }
  EXPECT_DOUBLE_EQ(now, give_up_at) << "the last try comes when the margin starts";
  EXPECT_GT(failures, 10) << "far more than a handful of tries in 100 s";
  EXPECT_DOUBLE_EQ(waits[0], 0.75);
  EXPECT_DOUBLE_EQ(waits[1], 1.5);
  EXPECT_DOUBLE_EQ(waits[5], 6);  // capped at 8 × 0.75
  // A failure at or after the give-up time gives up at once.
  EXPECT_TRUE(next_transfer_attempt(policy, 1, 100, 100, 0.5).give_up);
  EXPECT_TRUE(next_transfer_attempt(policy, 1, 250, 100, 0.5).give_up);
}

// A host whose one result waits to upload to 127.0.0.1:<closed port> (or, reloaded, whose
// results wait for downloads from there).
class HostTransferRetries : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / "tharsis-upload-retry-XXXXXX").string();
    ASSERT_NE(mkdtemp(dir_.data()), nullptr);
    HostState s;
    ClientFile out;
    out.name = "r_0";
    out.upload_urls = {"http://127.0.0.1:" + std::to_string(closed_port()) + "/file_upload_handler"};
    out.xml_signature = "cert";
    out.max_nbytes = 100;
    out.nbytes = 6;
    out.status = ClientFile::Status::Present;
    ClientResult r;
    r.name = "r";
    r.wu_name = "w";
    r.received_time = kReceived;
    r.report_deadline = static_cast<int64_t>(kReceived + 3600);
    r.file_refs = {{"r_0", "out", false, false}};
    r.state = TaskState::Uploading;
    s.files = {out};
    s.results = {r};
    reload(s);
  }
  void reload(const HostState& s) {
    ASSERT_TRUE(save_client_state(dir_, s).ok());
    HostClientOptions options;
    options.data_dir = dir_;
    options.transfer.first_delay = 1;
    options.transfer.max_delay = 60;
    host_ = std::make_unique<HostClient>(options);
    ASSERT_TRUE(host_->load().ok());
    ASSERT_TRUE(write_text_file(dir_ + "/projects/r_0", "answer").ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A port nothing listens on (bound a moment ago, then closed): connect is refused at once.
  static int closed_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    close(fd);
    return ntohs(address.sin_port);
  }
  const ClientResult& result() const { return host_->state().results.front(); }
  const ClientFile& file() const { return host_->state().files.front(); }

  static constexpr double kReceived = 1'700'000'000;
  std::string dir_;
  std::unique_ptr<HostClient> host_;
};

TEST_F(HostTransferRetries, KeepsRetryingUntilTheDeadlineMarginThenReportsTheError) {
  double give_up_at = kReceived + 3600 - 360;  // 10% of the 1 h delay bound
  double now = kReceived + 1;
  int attempts = 0;
  while (result().state == TaskState::Uploading && now < kReceived + 7200) {
    int before = file().failures;
    host_->step(now);
    if (file().failures > before) {
      ++attempts;
      if (result().state == TaskState::Uploading) {
        EXPECT_LE(file().next_attempt, give_up_at + 1e-6) << "a retry planned past the give-up time";
        EXPECT_GT(file().next_attempt, now) << "each failure backs off";
        // Nothing is due before the back-off ends: step() returns at once, tries nothing.
        int failures = file().failures;
        EXPECT_FALSE(host_->step(now + 1e-3 * (file().next_attempt - now)));
        EXPECT_EQ(file().failures, failures);
        now = file().next_attempt;
      }
    } else {
      now += 1;
    }
  }
  EXPECT_EQ(result().state, TaskState::Done);
  EXPECT_EQ(result().report_state, kReportUploading) << "reported in the state it failed in";
  EXPECT_EQ(result().exit_status, kErrUploadFailed);
  EXPECT_NEAR(now, give_up_at, 1e-6) << "given up when the margin started, not before";
  EXPECT_GT(attempts, 5) << "the old client gave up after 5";
  EXPECT_NE(result().stderr_text.find("near the report deadline"), std::string::npos) << result().stderr_text;
  EXPECT_EQ(host_->counters().transfer_errors, 1);
}

TEST_F(HostTransferRetries, PermanentRefusalEndsTheUploadAtOnce) {
  // No upload certificate: upload_file gives up without asking anyone (a permanent error).
  HostState s = host_->state();
  s.files.front().xml_signature.clear();
  reload(s);
  host_->step(kReceived + 1);
  EXPECT_EQ(result().state, TaskState::Done);
  EXPECT_EQ(result().exit_status, kErrUploadFailed);
  EXPECT_EQ(file().failures, 1);
}

TEST_F(HostTransferRetries, AFailedDownloadIsReportedAsDownloadingNotAsAComputeError) {
  // As BOINC's client does: the server tells a lost input from a failed run by the state
  // (the graph scheduler stages an operand's inputs again only for a DOWNLOADING error;
  // reported as COMPUTE_ERROR, a missing input failed every host that got the job).
  HostState s;
  ClientFile in;
  in.name = "w.in";  // no download URL: refused for good at the first try
  s.files = {in};
  s.app_versions = {{"example", 100, "x86_64-pc-linux-gnu", "", "", {}}};
  s.workunits = {{"w", "example", 100, "", 1e9, {{"w.in", "in", false, false}}}};
  ClientResult r;
  r.name = "r";
  r.wu_name = "w";
  r.version_num = 100;
  r.received_time = kReceived;
  r.report_deadline = static_cast<int64_t>(kReceived + 3600);
  s.results = {r};
  reload(s);
  host_->step(kReceived + 1);
  ASSERT_EQ(result().state, TaskState::Done);
  EXPECT_EQ(result().exit_status, kErrDownloadFailed);
  EXPECT_EQ(result().report_state, kReportDownloading);
  SchedulerRequest req = build_scheduler_request(host_->state(), HostDescription{}, 0, kReceived + 1);
  ASSERT_EQ(req.results.size(), 1u);
  EXPECT_EQ(req.results[0].state, 1) << "BOINC's RESULT_FILES_DOWNLOADING";
  EXPECT_EQ(req.results[0].exit_status, kErrDownloadFailed);
}

TEST_F(HostTransferRetries, DownloadsRetryUntilEachResultsOwnMarginSharedFilesGoOn) {
  // Two results of two workunits share the app file; the first is due in 10 minutes (gives
  // up at 480 s, 2 min before), the second in an hour.
  std::string url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/download/";
  HostState s;
  for (const char* name : {"app", "w1.in", "w2.in"}) {
    ClientFile f;
    f.name = name;
    f.download_urls = {url + name};
    s.files.push_back(f);
  }
  s.app_versions = {{"example", 100, "x86_64-pc-linux-gnu", "", "", {{"app", "", true, false}}}};
  for (int i : {1, 2}) {
    std::string n = std::to_string(i);
    s.workunits.push_back({"w" + n, "example", 100, "", 1e9, {{"w" + n + ".in", "in", false, false}}});
    ClientResult r;
    r.name = "r" + n;
    r.wu_name = "w" + n;
    r.version_num = 100;
    r.received_time = kReceived;
    r.report_deadline = static_cast<int64_t>(kReceived + (i == 1 ? 600 : 3600));
    s.results.push_back(r);
  }
  reload(s);
  double first_done = 0;
  for (double now = kReceived + 1; now < kReceived + 600; now += 1) {
    host_->step(now);
    if (first_done == 0 && host_->state().results[0].state == TaskState::Done) first_done = now;
  }
  const ClientResult& r1 = host_->state().results[0];
  const ClientResult& r2 = host_->state().results[1];
  EXPECT_EQ(r1.state, TaskState::Done);
  EXPECT_EQ(r1.exit_status, kErrDownloadFailed);
  EXPECT_GE(first_done, kReceived + 480) << "gave up before its margin";
  EXPECT_LE(first_done, kReceived + 481);
  EXPECT_EQ(r2.state, TaskState::Downloading) << "the later result keeps waiting for the shared app file";
  const ClientFile* app = host_->state().file("app");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->status, ClientFile::Status::Missing) << "a deadline is a result's, not the file's";
  EXPECT_GT(app->failures, 5);
}

}  // namespace
}  // namespace tharsis
