// tharsis-client through the project's outages (issue 13, items 7 and 9):
//  - Apache down for 10 s while simulated hosts hold computed results: their uploads
//    (and RPCs) fail and are retried with back-off; once Apache is back every result is
//    uploaded and reported as a success, none as a client error (the client used to give
//    up after 5 failures, about 6 s, and report the volunteers' work as client errors).
//  - The project's MariaDB halted and restarted while tharsis-sim --project_dir
//    --until_settled watches it: the client waits the database out (one warning), goes on,
//    and exits 0 once the project settles (it used to exit 1 at the first lost connection).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "db/queue_stats.h"
#include "db/sql.h"
#include "db/states.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "tests/support/child_process.h"
#include "tests/support/live_project.h"
#include "tests/support/test_project.h"
#include "tests/support/time_scale.h"
#include "tools/lib/make_project.h"

namespace tharsis {
namespace {

using testing::LiveProject;

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

TEST(ClientOutage, ComputedResultsOutlastAnApacheOutage) {
  LiveProject live;
  const int kWorkunits = 16;
  live.create_example_workunits("outage", kWorkunits, 1, 3600);
  live.start_daemons();
  testing::TempDir data("tharsis-client");
  // Slow hosts (each result held ~2 s before its upload) so that computed results are
  // waiting to upload when Apache goes away; retries capped at 2 s keep the test short.
  // The outage and the waits scale with THARSIS_TEST_TIME_SCALE: under the sanitizers
  // the hosts' downloads and runs of the (instrumented) app take longer, and a 10 s
  // outage could end before any result was ready to upload (none was, under ASan).
  auto args = live.simulation_args("outage_host", std::vector<std::string>(4, "ncpus=1,slowness=20"),
                                   static_cast<int>(testing::scaled_seconds(120)));
  args.insert(args.end(), {"--transfer_backoff_max", "2"});
  auto client = live.start_client("client", data.path(), args);
  auto in_progress = [&] {
    return query_int(live.db(), "SELECT COUNT(*) FROM result WHERE server_state = ?",
                     code(ServerState::InProgress));
  };
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(testing::scaled_seconds(30));
  while (std::chrono::steady_clock::now() < until && in_progress() < 8)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_GE(in_progress(), 8) << "the hosts got no work; see the project's log/client.log";

  live.web_server().halt();
  // The outage lasts at least 10 s and until the hosts have tried 8 uploads, so that it hits
  // results computed during it however slowly they are computed (a fixed 10 s ended before
  // any was, under the sanitizers on a loaded machine).
  auto failed_uploads = [&] {
    auto log = read_text_file(live.config().log_dir + "/client.log");
    return log.ok() ? count_of(*log, "upload of ") : 0;
  };
  const auto outage_start = std::chrono::steady_clock::now();
  const auto outage_min = outage_start + std::chrono::duration<double>(testing::scaled_seconds(10));
  const auto outage_max = outage_start + std::chrono::duration<double>(testing::scaled_seconds(60));
  while (std::chrono::steady_clock::now() < outage_max &&
         (std::chrono::steady_clock::now() < outage_min || failed_uploads() < 8u))
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(client->running()) << "the client exited during the outage";
  live.web_server().start();

  EXPECT_TRUE(live.wait_settled(testing::scaled_seconds(60)))
      << "not settled after the outage; see the project's log/";
  client->signal(SIGTERM);
  EXPECT_EQ(client->wait(20), 0);
  EXPECT_TRUE(live.stop_daemons());

  auto log = read_text_file(live.config().log_dir + "/client.log");
  ASSERT_TRUE(log.ok());
  EXPECT_GE(count_of(*log, "upload of "), 8u)
      << "the outage did not hit the uploads; the test proves nothing";
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM result WHERE outcome = ?", code(Outcome::ClientError)),
            0)
      << "computed results reported as client errors";
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM result WHERE outcome = ?", code(Outcome::Success)),
            kWorkunits)
      << "every result sent was computed, uploaded and reported as a success";
  EXPECT_EQ(workunit_progress(live.db()).with_canonical, kWorkunits);
}

TEST(ClientOutage, ProjectWatcherWaitsOutARestartedDatabase) {
  testing::DedicatedServer server;
  testing::TempDir dir("tharsis-watchdb");
  auto made = make_project(testing::dedicated_project_options(server, dir.path(), "watched"));
  ASSERT_TRUE(made.ok()) << made.error();
  {
    auto db = Database::open(made->db);
    JobSpec job;
    job.name = "unsettled";
    job.appid = 1;
    ASSERT_TRUE(create_workunit(*db, *made, job, std::time(nullptr)).ok());
  }
  // No scheduler listens at port 1: the host's RPCs fail at once and back off; the
  // watcher alone decides when the client exits.
  testing::TempDir data("tharsis-client");
  std::string log = made->log_dir + "/client.log";
  testing::ChildProcess client(
      "tharsis-sim",
      {"--data_dir", data.path(), "--project_url", "http://127.0.0.1:1/", "--authenticator", "key",
       "--scheduler_url", "http://127.0.0.1:1/cgi", "--max_backoff", "0.5", "--project_dir",
       made->project_dir, "--until_settled", "--summary", "--max_seconds", "90"},
      log);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(client.running()) << *read_text_file(log);
  server.halt();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_TRUE(client.running()) << "the client exited when the database went away: " << *read_text_file(log);
  server.start();
  // The project settles after the restart: the client sees it once it has reconnected.
  auto db = Database::open(made->db);
  exec(*db, "UPDATE workunit SET assimilate_state = ?, file_delete_state = ?", code(AssimilateState::Done),
       code(FileDeleteState::Done));
  auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(client.wait(45), 0) << *read_text_file(log);
  // Reconnect attempts 1, 2, 4 s after the outage began: well before --max_seconds.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30))
      << "exited by time, not settled";
  std::string text = *read_text_file(log);
  EXPECT_EQ(count_of(text, "watched project database unreachable"), 1u) << "one warning per outage:\n"
                                                                        << text;
  EXPECT_EQ(count_of(text, "watched project database reachable again"), 1u) << text;
  EXPECT_NE(text.find("summary:"), std::string::npos) << text;
}

}  // namespace
}  // namespace tharsis
