// What the status pages derive from DB rows without a database: a graph's state word,
// progress and staged-data curve (lib/web/graph_progress.h), and the reclustering page's
// model with its M(k) curve (lib/web/recluster_view.h).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <filesystem>

#include "db/state_names.h"
#include "lib/recluster/model.h"
#include "lib/web/graph_progress.h"
#include "lib/web/page_cache.h"
#include "lib/web/recluster_view.h"

namespace tharsis {
namespace {

using S = OperandState;

TEST(WebPageModels, GraphStateName_OneWordPerCode) {
  EXPECT_EQ(graph_state_name(GraphState::Running), "running");
  EXPECT_EQ(graph_state_name(GraphState::Done), "done");
  EXPECT_EQ(graph_state_name(GraphState::Failed), "failed");
  EXPECT_EQ(graph_state_name(GraphState::Cancelling), "cancelling");
  EXPECT_EQ(graph_state_name(GraphState::Cancelled), "cancelled");
}

TEST(WebPageModels, GraphProgress_FinishedAndFreedOverAll) {
  EXPECT_EQ(graph_progress({}), 0);
  EXPECT_DOUBLE_EQ(graph_progress({{S::Finished, 1}, {S::Freed, 2}, {S::Running, 1}}), 0.75);
}

// a(t=10, 100 B) and b(t=20, 50 B) feed c (t=30, 7 B): a and b are FREED when c finishes.
TEST(WebPageModels, StagedData_AddsAtFinishAndRemovesAtFreedTime) {
  std::vector<OperandNode> ops(3);
  ops[0] = {1, "a", 0, S::Freed, {}, 100, 10, 30};
  ops[1] = {2, "b", 0, S::Freed, {}, 50, 20, 30};
  ops[2] = {3, "c", 1, S::Finished, {1, 2}, 7, 30, 0};
  const auto series = staged_data_series(ops);
  ASSERT_EQ(series.size(), 5u);
  EXPECT_EQ(series[0].time, 10);
  EXPECT_EQ(series[0].bytes, 100);
  EXPECT_EQ(series[1].time, 20);  // step: the level held until the change
  EXPECT_EQ(series[1].bytes, 100);
  EXPECT_EQ(series[2].bytes, 150);
  EXPECT_EQ(series[3].time, 30);
  EXPECT_EQ(series[4].time, 30);
  EXPECT_EQ(series[4].bytes, 7);  // a and b freed, c's output kept
}

TEST(WebPageModels, StagedData_UnfinishedOperandsAddNothing) {
  std::vector<OperandNode> ops(2);
  ops[0] = {1, "a", 0, S::Finished, {}, 100, 10, 0};
  ops[1] = {2, "b", 1, S::Running, {1}, 50, 0, 0};
  const auto series = staged_data_series(ops);
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].bytes, 100);
}

TEST(WebPageModels, MakespanCurve_FollowsTheModelAndIsEmptyWithoutTasks) {
  ClusterParams params;
  params.n = 1000;
  params.r = 20;
  params.phi = 5;
  params.D = 5;
  const auto curve = makespan_curve(params, FailureModel::Task, 0.01, 60);
  ASSERT_EQ(curve.size(), 60u);
  EXPECT_DOUBLE_EQ(curve[9].k, 10);
  EXPECT_DOUBLE_EQ(curve[9].makespan, expected_makespan_tfm(params, 10, 0.01));
  EXPECT_DOUBLE_EQ(makespan_curve(params, FailureModel::Job, 0.1, 5)[4].makespan,
                   expected_makespan_jfm(params, 5, 0.1));
  params.n = 0;
  EXPECT_TRUE(makespan_curve(params, FailureModel::Task, 0.01).empty());
}

TEST(WebPageModels, ReclusterView_CurrentKFromLatestSampleAndCurveAtItsRate) {
  ReclusterHistory history{7, "ops", {{100, 0.02, 0.2, 9}, {200, 0.03, 0.3, 5}}, "TFM", 40};
  ReclusterContext context;
  context.policy = "DR";
  context.tasks_waiting = 0;  // the window's 40 tasks stand in
  context.active_hosts = 0;   // at least one host
  const ReclusterApp app = recluster_app_view(history, context);
  EXPECT_EQ(app.current_k, 5);
  EXPECT_EQ(app.policy, "DR");
  EXPECT_EQ(app.tasks_left, 40);
  EXPECT_EQ(app.hosts, 1);
  ASSERT_EQ(app.makespan_curve.size(), 40u);
  ClusterParams params;
  params.n = 40;
  params.r = 1;
  params.phi = 5;
  params.D = 5;
  EXPECT_DOUBLE_EQ(app.makespan_curve[2].makespan, expected_makespan_tfm(params, 3, 0.03));
}

TEST(WebPageModels, PageCache_ServesA200ResponseUntilItsTimeToLive) {
  char pattern[] = "/tmp/tharsis-page-cache-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = std::string(pattern) + "/status_pages";
  const std::string path = page_cache_path(dir, "server_status", "format=json");
  EXPECT_NE(path, page_cache_path(dir, "server_status", ""));  // each query string its own file
  EXPECT_FALSE(read_cached_page(path, static_cast<int64_t>(std::time(nullptr)), 30));
  store_cached_page(path, CgiResponse{200, "application/json", "{\"a\":1}\n"});
  // Ages count from the file's time, whichever second the store fell in.
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  const auto stored = static_cast<int64_t>(info.st_mtime);
  auto hit = read_cached_page(path, stored, 30);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->content_type, "application/json");
  EXPECT_EQ(hit->body, "{\"a\":1}\n");
  EXPECT_TRUE(read_cached_page(path, stored + 29, 30));
  EXPECT_FALSE(read_cached_page(path, stored + 30, 30));  // expired
  // A reader whose request began the second before another process stored the page.
  EXPECT_TRUE(read_cached_page(path, stored - 1, 30));
  EXPECT_FALSE(read_cached_page(path, stored - 2, 30));  // a clock step back: not trusted
  const std::string error_path = page_cache_path(dir, "graphs", "id=9");
  store_cached_page(error_path, CgiResponse{404, "text/html; charset=utf-8", "no graph"});
  EXPECT_FALSE(
      read_cached_page(error_path, static_cast<int64_t>(std::time(nullptr)), 30));  // errors not kept
  std::filesystem::remove_all(pattern);
}

}  // namespace
}  // namespace tharsis
