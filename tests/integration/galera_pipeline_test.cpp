// Issue 17's end-to-end run: a whole project on the 3-node Galera cluster (config.xml
// listing the nodes in <db_nodes>) with two scheduler hosts — two Apaches, the first's
// CGIs on node 1, the second's on node 2 — both listed on the master page, simulated
// volunteers (some faulty) spreading over them, the four daemons sharded --mod 3 with
// shard i on node i, and node 2 SIGKILLed mid-run and restarted. Every workunit ends with
// the right canonical output or an error, assimilated exactly once, tools/check --settled
// clean, no result sent twice and no host given two results of one workunit; both
// scheduler hosts served RPCs. Skipped without galera-4.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "daemons/assimilator/lib/results_store.h"
#include "db/queue_stats.h"
#include "db/sql.h"
#include "lib/crypto/md5.h"
#include "lib/text_file.h"
#include "tests/support/galera_cluster.h"
#include "tests/support/live_project.h"
#include "tests/support/time_scale.h"
#include "tools/lib/checker.h"

namespace tharsis {
namespace {

using testing::GaleraCluster;
using testing::LiveProject;
using testing::TestWebServer;

TEST(GaleraPipeline, WorkunitsSettleWithDaemonsOnThreeNodesAndOneNodeKilledMidRun) {
  if (std::string missing = GaleraCluster::missing_prerequisite(); !missing.empty()) {
    GTEST_SKIP() << "Galera tests skipped: " << missing;
  }
  GaleraCluster& cluster = GaleraCluster::shared();
  cluster.heal();
  LiveProject live(cluster.admin(1));  // the first scheduler host and the test use node 1
  ASSERT_EQ(live.config().db_nodes.size(), 3u);
  TestWebServer& second = live.add_scheduler_host(2);
  const std::string first_scheduler = live.config().cgi_url + "cgi";
  const std::string second_scheduler = second.url(live.config().name + "_cgi/cgi");
  live.set_scheduler_urls({first_scheduler, second_scheduler});

  const int kWorkunits = 200;
  live.create_example_workunits("gal", kWorkunits, 2, 60);
  for (const char* daemon : {"transitioner", "validator", "assimilator", "file_deleter"}) {
    for (int shard = 0; shard < 3; ++shard) {
      live.start_daemon(
          daemon, {"--mod", "3", "--mod_id", std::to_string(shard), "--db_node", std::to_string(shard + 1)});
    }
  }
  std::vector<std::string> args =
      live.simulation_args("galhost",
                           {"ncpus=2", "ncpus=2", "ncpus=2,job_failure=0.2", "ncpus=2", "ncpus=2,garbage=0.1",
                            "ncpus=2,task_failure=0.1", "ncpus=2", "ncpus=2,job_failure=0.1"},
                           static_cast<int>(testing::scaled_seconds(400)));
  args.insert(args.end(), {"--summary", "--until_settled"});
  testing::TempDir data("tharsis-galera-sim");
  auto client = live.start_client("simulation", data.path(), args);

  // Mid-run: some results reported, not all workunits assimilated.
  auto reported = [&] { return query_int(live.db(), "SELECT COUNT(*) FROM result WHERE server_state = 5"); };
  for (int i = 0; i < 600 && reported() < kWorkunits / 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_LT(query_int(live.db(), "SELECT COUNT(*) FROM assimilation"), kWorkunits) << "killed too late";
  cluster.kill(2);  // the validator's and file_deleter's node
  // Down until the validator of shard 1 (polling every 0.05 s, on node 2) has moved to a
  // fall-back node: on a loaded machine the surviving nodes may take seconds to settle
  // their membership, and a node back too soon would be found again before any fall-back
  // answered.
  auto validator_moved = [&] {
    auto log = read_text_file(live.config().log_dir + "/validator_2.log");
    return log.ok() && log->find("(fall-back)") != std::string::npos;
  };
  for (int i = 0; i < 600 && !validator_moved(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  cluster.restart(2);

  EXPECT_EQ(client->wait(testing::scaled_seconds(420)), 0)
      << "the simulation did not settle; see the project's log/simulation.log";
  EXPECT_TRUE(live.stop_daemons()) << "a daemon died with its node";
  const WorkunitProgress progress = workunit_progress(live.db());
  ASSERT_TRUE(progress.settled()) << "workunits " << progress.total << ", files deleted "
                                  << progress.files_deleted << ", results not over "
                                  << progress.results_not_over << ", result files pending "
                                  << progress.result_files_pending;
  // The validator of node 2 saw its node go and moved to a fall-back.
  auto validator_log = read_text_file(live.config().log_dir + "/validator_2.log");
  ASSERT_TRUE(validator_log.ok()) << validator_log.error();
  EXPECT_NE(validator_log->find("(fall-back)"), std::string::npos) << *validator_log;

  int correct = 0, errored = 0;
  for (int i = 0; i < kWorkunits; ++i) {
    std::string wu = "gal" + std::to_string(i);
    auto manifest = read_manifest(live.config().project_dir + "/results", wu);
    if (manifest.ok()) {
      ASSERT_EQ(manifest->size(), 1u) << wu;
      EXPECT_EQ(manifest->front().md5, md5_hex(LiveProject::expected_output(wu))) << wu;
      ++correct;
    } else {
      ++errored;
    }
  }
  EXPECT_EQ(correct + errored, kWorkunits);
  EXPECT_GT(correct, kWorkunits * 8 / 10);
  // Assimilated exactly once each (one assimilation row per workunit, none twice).
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM assimilation"), kWorkunits);
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(DISTINCT workunitid) FROM assimilation"), kWorkunits);
  // No host given two results of one workunit.
  EXPECT_EQ(query_int(live.db(),
                      "SELECT COUNT(*) FROM (SELECT workunitid, hostid FROM result WHERE hostid > 0 "
                      "GROUP BY workunitid, hostid HAVING COUNT(*) > 1) t"),
            0);
  // Both scheduler hosts served scheduler RPCs (the hosts spread over the master page's list).
  for (const auto& log_path : {live.web_server().access_log(), second.access_log()}) {
    auto log = read_text_file(log_path);
    ASSERT_TRUE(log.ok()) << log.error();
    EXPECT_NE(log->find("POST /" + live.config().name + "_cgi/cgi "), std::string::npos) << log_path;
  }
  CheckReport report = check_project(live.db(), live.config(), std::time(nullptr), /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
  // Every node holds the same settled state.
  for (int node = 1; node <= 3; ++node) {
    DbConfig config = cluster.admin_only(node);
    config.name = live.config().db.name;
    auto db = Database::open(config);
    exec(*db, "SET SESSION wsrep_sync_wait = 1");
    EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM assimilation"), kWorkunits) << "node " << node;
  }
}

}  // namespace
}  // namespace tharsis
