// tharsis-client against a real project: MariaDB, Apache serving the scheduler, upload
// handler and download/, the four daemons as processes. One volunteer attaches with the
// project URL and its account key, fetches work, downloads the signed example app and
// the inputs, runs the tasks, uploads and reports; it is SIGKILLed midway and restarted
// from its state file, and every workunit still ends with the right canonical output,
// assimilated once, its files deleted, tools/check clean. An app swapped on the download
// server (md5 and size fixed up to match) fails its code signature and never runs.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "daemons/assimilator/lib/results_store.h"
#include "db/queue_stats.h"
#include "db/sql.h"
#include "lib/crypto/md5.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
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
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM assimilation"), workunits);
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

  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM host"), 1)
      << "the restarted client must keep its host id";
  EXPECT_EQ(workunit_progress(live.db()).with_canonical, kWorkunits);
  expect_correct_outputs(live, "plain", kWorkunits);
  expect_check_clean(live, kWorkunits);
}

TEST(VolunteerClient, ExecutableWithoutTheProjectsSignatureIsNeverRun) {
  LiveProject live;
  std::string key = live.add_volunteer("bob");
  live.create_example_workunits("tampered", 1, 1, 3600);
  // Someone who controls the download server and the database, but not the code-signing
  // key, swaps the app for a script and fixes its md5 and size: only the signature is left.
  std::string name = "example_100_x86_64-pc-linux-gnu_example_app";
  std::string path = fanout_path(live.config().download_dir, name, live.config().uldl_dir_fanout);
  std::string evil = "#!/bin/sh\necho pwned > out\n";
  ASSERT_TRUE(write_text_file(path, evil, 0755).ok());
  auto version = query(live.db(), "SELECT id, xml_doc FROM app_version");
  ASSERT_TRUE(version->next());
  int64_t version_id = version->getInt64(1);
  std::string xml = version->getString(2);
  auto md5_at = xml.find("<md5_cksum>") + std::string("<md5_cksum>").size();
  xml.replace(md5_at, 32, md5_hex(evil));
  auto size_at = xml.find("<nbytes>") + std::string("<nbytes>").size();
  xml.replace(size_at, xml.find("</nbytes>") - size_at, std::to_string(evil.size()));
  exec(live.db(), "UPDATE app_version SET xml_doc = ? WHERE id = ?", xml, version_id);
  live.start_daemons();
  testing::TempDir data("tharsis-client");
  auto client = live.start_client("client", data.path(),
                                  {"--project_url", live.master_url(), "--authenticator", key,
                                   "--max_request_delay", "0", "--max_backoff", "0.3"});
  for (int i = 0; i < 300 && query_int(live.db(), "SELECT COUNT(*) FROM result WHERE outcome = 3") == 0;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  client->signal(SIGTERM);
  EXPECT_EQ(client->wait(20), 0);
  auto failed = query(live.db(),
                      "SELECT s.stderr_out FROM result r JOIN result_stderr s ON s.resultid = r.id WHERE "
                      "r.outcome = 3");
  ASSERT_TRUE(failed->next()) << "the client did not report the tampered app as an error";
  EXPECT_NE(failed->getString(1).find("code signature does not verify"), std::string::npos)
      << failed->getString(1);
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM result WHERE outcome = 1"), 0)
      << "the tampered app ran";
}

}  // namespace
}  // namespace tharsis
