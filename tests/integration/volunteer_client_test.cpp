// tharsis-client against a real project: MariaDB, Apache serving the scheduler, upload
// handler and download/, the four daemons as processes. One volunteer attaches with the
// project URL and its account key, fetches work, downloads the signed example app and
// the inputs, runs the tasks, uploads and reports; it is SIGKILLed midway and restarted
// from its state file, and every workunit still ends with the right canonical output,
// assimilated once, its files deleted, tools/check clean.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "daemons/assimilator/lib/results_store.h"
#include "db/queue_stats.h"
#include "lib/crypto/md5.h"
#include "tests/support/live_project.h"
#include "tools/lib/checker.h"

namespace tharsis {
namespace {

using testing::LiveProject;

// Every workunit's stored canonical output is the example kernel's answer for its input.
void expect_correct_outputs(LiveProject& live, const std::string& prefix, int count) {
  for (int i = 0; i < count; ++i) {
    std::string wu = prefix + std::to_string(i);
    auto manifest = read_manifest(live.config().project_dir + "/results", wu);
    ASSERT_TRUE(manifest.ok()) << wu << ": " << manifest.error();
    ASSERT_EQ(manifest->size(), 1u) << wu;
    EXPECT_EQ(manifest->front().md5, md5_hex(LiveProject::expected_output(wu)))
        << wu << ": wrong canonical output";
  }
}

void expect_check_clean(LiveProject& live, int workunits) {
  CheckReport report = check_project(live.db(), live.config(), std::time(nullptr), /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
  EXPECT_EQ(report.workunits, workunits);
  EXPECT_EQ(live.db().query_int("SELECT COUNT(*) FROM assimilation"), workunits);
}

TEST(VolunteerClient, OneHostComputesEverythingAndCarriesOnAfterSigkill) {
  LiveProject live;
  std::string key = live.add_volunteer("alice");
  const int kWorkunits = 12;
  live.create_example_workunits("plain", kWorkunits, 1, 3600);
  live.start_daemons();
  testing::TempDir data("tharsis-client");
  std::vector<std::string> args{"--project_url",
                                live.master_url(),
                                "--authenticator",
                                key,
                                "--ncpus",
                                "2",
                                "--max_request_delay",
                                "0",
                                "--max_backoff",
                                "0.3"};
  auto client = live.start_client("client", data.path(), args);
  // Let it report some results, then kill it without warning.
  for (int i = 0; i < 600 && workunit_progress(live.db()).with_canonical < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(workunit_progress(live.db()).with_canonical, 3)
      << "no progress; see the project's log/client.log";
  client->signal(SIGKILL);
  client->wait(10);
  // Restarted with no attach options: it carries on from client_state.xml, same host.
  auto restarted = live.start_client("client_restarted", data.path(),
                                     {"--max_request_delay", "0", "--max_backoff", "0.3"});
  EXPECT_TRUE(live.wait_settled(90)) << "not settled; see the project's log/";
  restarted->signal(SIGTERM);
  EXPECT_EQ(restarted->wait(20), 0);
  EXPECT_TRUE(live.stop_daemons());

  EXPECT_EQ(live.db().query_int("SELECT COUNT(*) FROM host"), 1)
      << "the restarted client must keep its host id";
  EXPECT_EQ(workunit_progress(live.db()).with_canonical, kWorkunits);
  expect_correct_outputs(live, "plain", kWorkunits);
  expect_check_clean(live, kWorkunits);
}

}  // namespace
}  // namespace tharsis
