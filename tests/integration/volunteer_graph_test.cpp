// Issue 6 end to end: MariaDB, Apache, the four daemons and the graph scheduler as
// processes, the operand app published as a signed app version, and five simulated
// volunteer hosts in one tharsis-client process, one of which vanishes (20%): the graph
// (a + b).sum(), and a chain of matmuls over more than 100 chunk operands, finish and their
// results match the direct computation to 1e-9; and (a + b).sum() again with the first
// operand input staged in download/ removed once its workunit is committed, before any
// host could fetch it: the hosts
// report their download failures as DOWNLOADING errors, the graph scheduler stages the
// input again, and the job ends with one error, not four (the demo's failure: reported as
// compute errors, a lost input failed every host that got the job).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "db/graph_store.h"
#include "db/sql.h"
#include "db/state_names.h"
#include "lib/operand/direct_evaluator.h"
#include "lib/operand/graph_compiler.h"
#include "tests/support/live_project.h"
#include "tests/support/time_scale.h"
#include "tools/lib/app_admin.h"
#include "tools/lib/checker.h"
#include "tools/lib/graph_from_chunks.h"
#include "tools/lib/graph_result.h"

namespace tharsis {
namespace {

using testing::LiveProject;

// Removes the first operand input the graph scheduler stages in download/ (`<output>.in`)
// once the workunit naming it is committed (its workunit_input row is there), once, while
// it runs. (Removed before that commit, the graph scheduler finds it gone and stages it
// again before it commits: GraphPipeline.AnInputReusedFromASiblingIsNotLostToTheFileDeleterMeanwhile.)
class StagedInputLoser {
 public:
  StagedInputLoser(std::string download_dir, DbConfig db)
      : dir_(std::move(download_dir)), db_(std::move(db)), thread_([this] { run(); }) {}
  ~StagedInputLoser() { finish(); }
  // Stops watching; the name of the input removed, or empty.
  std::string finish() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return lost_name_;
  }

 private:
  void run() {
    namespace fs = std::filesystem;
    auto db = Database::open(db_);
    while (!stop_) {
      std::error_code ec;
      for (fs::recursive_directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() > 3 && name.ends_with(".in") &&
            query_int(*db, "SELECT COUNT(*) FROM workunit_input WHERE file_name = ?", name) > 0 &&
            fs::remove(it->path(), ec)) {
          lost_name_ = name;
          return;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  std::string dir_;
  DbConfig db_;
  std::atomic<bool> stop_{false};
  std::string lost_name_;
  std::thread thread_;
};

// Runs `expression` as graph `name` on five simulated two-CPU hosts (the fifth vanishes
// after a second) and checks the answer, the graph's end state and the invariants;
// `operands` gets the graph's operand count. With `lose_an_input`, the first operand input
// staged is removed from download/ as soon as its workunit names it (StagedInputLoser).
void run_graph_through_volunteers(const std::string& name, const std::string& expression, int64_t& operands,
                                  bool lose_an_input = false) {
  LiveProject live;
  auto app = ensure_app(live.db(), "operand", "bitwise");
  ASSERT_TRUE(app.ok()) << app.error();
  auto published = publish_app_version(
      live.db(), live.config(),
      {"operand", "x86_64-pc-linux-gnu", 100, {testing::built_programs_dir() + "/operand_app"}});
  ASSERT_TRUE(published.ok()) << published.error();
  auto templ = write_output_template(live.config(), "operand_out1.xml", 1, live.config().max_upload_size);
  ASSERT_TRUE(templ.ok()) << templ.error();
  JobSpec job;
  job.appid = *app;
  job.output_template_file = *templ;
  // The vanished host's jobs time out within the test. Scaled, like the waits below, for
  // the slower processes under the sanitizers (tests/support/time_scale.h), so that the
  // other hosts' jobs do not time out as well.
  job.delay_bound = static_cast<int>(testing::scaled_seconds(8));
  job.rsc_fpops_est = 1e8;
  auto graph_id =
      submit_expression(live.db(), live.config(), name, expression, job, {}, 5, std::time(nullptr));
  ASSERT_TRUE(graph_id.ok()) << graph_id.error();

  std::vector<std::string> args{"--project_url",
                                live.master_url(),
                                "--max_request_delay",
                                "0",
                                "--max_backoff",
                                "0.5",
                                "--transfer_backoff",
                                "0.2",
                                "--until_settled",
                                "--project_dir",
                                live.config().project_dir,
                                "--max_seconds",
                                std::to_string(static_cast<int>(testing::scaled_seconds(150)))};
  for (int i = 0; i < 5; ++i) {
    args.push_back("--host");
    args.push_back("auth=" + live.add_volunteer("gv" + std::to_string(i)) + ",ncpus=2" +
                   (i == 4 ? ",vanish_after=1" : ""));
  }
  live.start_daemons();
  testing::ChildProcess graph_scheduler(
      "graph_scheduler",
      {"--project_dir", live.config().project_dir, "--sleep", "0.05", "--prefer_seconds", "2"},
      live.config().log_dir + "/graph_scheduler.log");
  testing::TempDir data("tharsis-graph-sim");
  std::optional<StagedInputLoser> loser;
  if (lose_an_input) loser.emplace(live.config().download_dir, live.config().db);
  auto client = live.start_client("graph_simulation", data.path(), args);
  EXPECT_EQ(client->wait(testing::scaled_seconds(170)), 0) << "see the project's log/graph_simulation.log";
  const std::string lost = loser ? loser->finish() : "";
  graph_scheduler.signal(SIGTERM);
  EXPECT_EQ(graph_scheduler.wait(20), 0);
  EXPECT_TRUE(live.stop_daemons());

  auto graph = fetch_graph(live.db(), *graph_id);
  ASSERT_TRUE(graph.has_value());
  ASSERT_EQ(graph->state, GraphState::Done) << "graph " << graph_state_name(graph->state);
  auto result = collect_graph_result(live.db(), live.config(), *graph_id);
  ASSERT_TRUE(result.ok()) << result.error();
  auto direct = operand::evaluate_directly(*operand::parse_submission(expression));
  ASSERT_TRUE(direct.ok()) << direct.error();
  auto difference = operand::max_relative_difference(*result, *direct);
  ASSERT_TRUE(difference.ok()) << difference.error();
  EXPECT_LE(*difference, 1e-9);
  operands = query_int(live.db(), "SELECT COUNT(*) FROM operand WHERE graph_id = ?", *graph_id);
  std::cout << "graph " << name << ": " << operands << " operands, "
            << query_int(live.db(), "SELECT COUNT(*) FROM result") << " results, "
            << query_int(live.db(), "SELECT COUNT(*) FROM result WHERE outcome = 4") << " timed out\n";
  if (lose_an_input) {
    ASSERT_FALSE(lost.empty()) << "no operand input was staged";
    const int64_t download_errors =
        query_int(live.db(), "SELECT COUNT(*) FROM result WHERE outcome = ? AND client_state = ?",
                  Outcome::ClientError, ClientState::Downloading);
    std::cout << "lost " << lost << ": " << download_errors << " download error(s)\n";
    EXPECT_GE(download_errors, 1) << "no host noticed the lost input";
  }
  CheckReport report = check_project(live.db(), live.config(), std::time(nullptr), /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
}

TEST(VolunteerGraph, SumOfTwoTensorsThroughRealClientsWithAVanishingHost) {
  int64_t operands = 0;
  run_graph_through_volunteers(
      "e2e_sum",
      "a = rand(seed=1, shape=(60,60), chunk=(20,20)); b = rand(seed=2, shape=(60,60), chunk=(20,20));"
      " result = (a + b).sum()",
      operands);
}

TEST(VolunteerGraph, AnInputLostFromDownloadIsStagedAgainAfterTheFirstHostFailsToFetchIt) {
  int64_t operands = 0;
  run_graph_through_volunteers(
      "e2e_sum_lost_input",
      "a = rand(seed=1, shape=(60,60), chunk=(20,20)); b = rand(seed=2, shape=(60,60), chunk=(20,20));"
      " result = (a + b).sum()",
      operands, /*lose_an_input=*/true);
}

TEST(VolunteerGraph, ChainOfMatmulsOverMoreThanAHundredChunksThroughRealClients) {
  int64_t operands = 0;
  run_graph_through_volunteers(
      "e2e_matmul_chain",
      "a = rand(seed=1, shape=(80,80), chunk=(20,20)); b = rand(seed=2, shape=(80,80), chunk=(20,20));"
      " c = rand(seed=3, shape=(80,80), chunk=(20,20)); result = (a @ b) @ c",
      operands);
  EXPECT_GE(operands, 100) << "the chain should span more than a hundred chunk operands";
}

}  // namespace
}  // namespace tharsis
