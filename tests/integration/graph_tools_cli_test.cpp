// The graph programs as processes against a real project: submit_graph prints the graph
// id, graph_scheduler --one_pass makes its source operands READY, graph_status reports
// them, cancel_graph cancels; bad input gets a clear error and a non-zero exit.
#include <gtest/gtest.h>

#include "db/graph_store.h"
#include "lib/text_file.h"
#include "tests/support/child_process.h"
#include "tests/support/test_project.h"

namespace tharsis {
namespace {

using testing::ChildProcess;

class GraphToolsCli : public ::testing::Test {
 protected:
  int run(const std::string& program, std::vector<std::string> args) {
    args.insert(args.begin(), {"--project_dir", project_.config().project_dir});
    ChildProcess child(program, args, log_);
    return child.wait(60);
  }
  std::string log() {
    auto text = read_text_file(log_);
    return text.ok() ? *text : std::string();
  }

  testing::TestProject project_;
  std::string log_ = project_.dir() + "/tools.log";
};

TEST_F(GraphToolsCli, SubmitScheduleStatusCancel) {
  const std::string expression =
      "a = rand(seed=1, shape=(20,20), chunk=(10,10)); b = rand(seed=2, shape=(20,20), chunk=(10,10)); "
      "result = (a + b).sum()";
  ASSERT_EQ(run("submit_graph", {"--name", "cli", "--app", "example", "--expression", expression}), 0)
      << log();
  auto db = project_.open();
  auto graph = fetch_graph_by_name(*db, "cli");
  ASSERT_TRUE(graph.has_value());
  EXPECT_NE(log().find(std::to_string(graph->id)), std::string::npos) << "prints the graph id";

  ASSERT_EQ(run("graph_scheduler", {"--one_pass", "--prefer_seconds", "30"}), 0) << log();
  int ready = 0;
  for (const auto& o : fetch_operands_of_graph(*db, graph->id)) ready += o.state == OperandState::Ready;
  EXPECT_GT(ready, 0) << "source operands are READY after one pass";

  ASSERT_EQ(run("graph_status", {"--graph_id", std::to_string(graph->id), "--operands"}), 0) << log();
  EXPECT_NE(log().find("ready " + std::to_string(ready)), std::string::npos) << log();

  ASSERT_EQ(run("cancel_graph", {"--graph_id", std::to_string(graph->id)}), 0) << log();
  EXPECT_EQ(fetch_graph(*db, graph->id)->state, GraphState::Cancelling);

  EXPECT_EQ(run("cancel_graph", {"--graph_id", "99999"}), 1);
  EXPECT_NE(log().find("no graph 99999"), std::string::npos) << log();
  EXPECT_EQ(run("submit_graph", {"--name", "bad", "--app", "example", "--expression", "a = rand(seed=1"}), 1);
  EXPECT_FALSE(fetch_graph_by_name(*db, "bad").has_value());
  EXPECT_EQ(run("submit_graph", {"--name", "cli", "--app", "example", "--expression", expression}), 1)
      << "the name is taken";
  EXPECT_EQ(run("graph_scheduler", {"--one_pass", "--prefer_seconds", "soon"}), 2);
}

}  // namespace
}  // namespace tharsis
