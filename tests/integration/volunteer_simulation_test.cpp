// Issue 4's end-to-end run: MariaDB, Apache, the four daemons as processes, 200
// workunits of quorum 2 made by create_work --bulk, and eight simulated volunteer hosts in
// one tharsis-client process (each its own account, host and state dir): two sound, one
// whose task processes crash now and then (restarted), one whose jobs fail, one that
// returns garbage, one that vanishes, one slow, one with a bit of everything. Every
// workunit ends with the right canonical output or an error, assimilated once, its files
// deleted, tools/check --settled clean; garbage never becomes canonical; the vanished
// host's results time out.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "daemons/assimilator/lib/results_store.h"
#include "db/queue_stats.h"
#include "db/sql.h"
#include "lib/crypto/md5.h"
#include "lib/text_file.h"
#include "tests/support/live_project.h"
#include "tests/support/time_scale.h"
#include "tools/lib/checker.h"

namespace tharsis {
namespace {

using testing::LiveProject;

int64_t host_id(LiveProject& live, const std::string& domain_name) {
  auto rows = query(live.db(), "SELECT id FROM host WHERE domain_name = ?", domain_name);
  return rows->next() ? rows->getInt64(1) : 0;
}

TEST(VolunteerSimulation, TwoHundredWorkunitsEightFaultyHostsAllSettleCorrectly) {
  LiveProject live;
  const int kWorkunits = 200;
  // A short delay_bound so the vanished host's results time out within the test.
  live.create_example_workunits("sim", kWorkunits, 2, 8);
  const std::vector<std::string> faults{
      "ncpus=2",                                               // simhost0: sound
      "ncpus=2",                                               // simhost1: sound
      "ncpus=2,task_failure=0.3",                              // simhost2: crashes, restarted
      "ncpus=2,job_failure=0.4",                               // simhost3: jobs fail (client errors)
      "ncpus=2,garbage=1",                                     // simhost4: every output garbage
      "ncpus=2,vanish_after=1",                                // simhost5: gone after a second
      "ncpus=2,slowness=4",                                    // simhost6: slow
      "ncpus=2,task_failure=0.1,job_failure=0.1,garbage=0.1",  // simhost7: a bit of everything
  };
  std::vector<std::string> args =
      live.simulation_args("sim", faults, static_cast<int>(testing::scaled_seconds(150)));
  args.insert(args.end(), {"--summary", "--until_settled"});
  live.start_daemons();
  testing::TempDir data("tharsis-sim");
  auto client = live.start_client("simulation", data.path(), args);
  EXPECT_EQ(client->wait(testing::scaled_seconds(170)), 0)
      << "the simulation did not settle; see the project's log/simulation.log";
  EXPECT_TRUE(live.stop_daemons());
  ASSERT_TRUE(workunit_progress(live.db()).settled());

  // Every workunit: the right canonical output, or an error record.
  int correct = 0, errored = 0;
  for (int i = 0; i < kWorkunits; ++i) {
    std::string wu = "sim" + std::to_string(i);
    auto manifest = read_manifest(live.config().project_dir + "/results", wu);
    if (manifest.ok()) {
      ASSERT_EQ(manifest->size(), 1u) << wu;
      EXPECT_EQ(manifest->front().md5, md5_hex(LiveProject::expected_output(wu)))
          << wu << ": wrong canonical output";
      ++correct;
    } else {
      EXPECT_TRUE(
          read_text_file(workunit_store_dir(live.config().project_dir + "/results", wu) + "/ERROR").ok())
          << wu << ": neither a canonical output nor an error";
      ++errored;
    }
  }
  EXPECT_EQ(correct + errored, kWorkunits);
  EXPECT_GT(correct, kWorkunits * 9 / 10) << "the sound hosts should finish almost everything";
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM assimilation"), kWorkunits);
  CheckReport report = check_project(live.db(), live.config(), std::time(nullptr), /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;

  // Each fault left its mark, and none got through.
  int64_t garbage_host = host_id(live, "simhost4"), vanished_host = host_id(live, "simhost5");
  ASSERT_GT(garbage_host, 0);
  ASSERT_GT(vanished_host, 0);
  EXPECT_EQ(query_int(live.db(),
                      "SELECT COUNT(*) FROM workunit w JOIN result r ON r.id = w.canonical_resultid "
                      "WHERE r.hostid = ?",
                      garbage_host),
            0)
      << "a garbage output became canonical";
  EXPECT_GT(query_int(live.db(), "SELECT COUNT(*) FROM result WHERE hostid = ? AND validate_state = 2",
                      garbage_host),
            0)
      << "the validator never marked the garbage invalid";
  EXPECT_GT(
      query_int(live.db(), "SELECT COUNT(*) FROM result WHERE hostid = ? AND outcome = 4", vanished_host), 0)
      << "the vanished host's results never timed out";
  EXPECT_GT(query_int(live.db(), "SELECT COUNT(*) FROM result WHERE hostid = ? AND outcome = 3",
                      host_id(live, "simhost3")),
            0)
      << "the failing host reported no client errors";
  EXPECT_GT(query_int(live.db(), "SELECT COUNT(*) FROM result WHERE hostid = ? AND validate_state = 1",
                      host_id(live, "simhost2")),
            0)
      << "the crashing host's restarted tasks never produced a valid result";

  // The summary hook the demo uses: progress lines, then one summary line.
  auto log = read_text_file(live.config().log_dir + "/simulation.log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("] workunits "), std::string::npos) << "no progress line";
  auto summary = log->find("summary: workunits 200 (");
  ASSERT_NE(summary, std::string::npos) << "no summary line";
  std::cout << log->substr(summary, log->find('\n', summary) - summary) << "\n";
}

}  // namespace
}  // namespace tharsis
