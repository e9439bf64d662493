// The graph programs as processes against a real project: submit_graph prints the graph
// id, graph_scheduler --one_pass makes its source operands READY, graph_status reports
// them, cancel_graph cancels; bad input gets a clear error and a non-zero exit.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "db/graph_store.h"
#include "lib/text_file.h"
#include "tests/support/child_process.h"
#include "tests/support/test_database.h"
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

// Found by bench/chaos.sh: `submit_graph --wait` died at its first poll after the database
// went away ("Server has gone away"), leaving the submitter without the result of a graph
// that went on running. It waits the outage out now, as the daemons do.
TEST(SubmitGraphWait, WaitsOutADatabaseRestart) {
  testing::DedicatedServer server;
  testing::TempDir dir("tharsis-graphwait");
  auto made = make_project(testing::dedicated_project_options(server, dir.path(), "gw"));
  ASSERT_TRUE(made.ok()) << made.error();
  std::string app_file = dir.path() + "/example_app";
  ASSERT_TRUE(write_text_file(app_file, "#!/bin/sh\n").ok());
  std::string log = dir.path() + "/tools.log";
  ASSERT_EQ(ChildProcess("add_app",
                         {"--project_dir", made->project_dir, "--app", "example", "--file", app_file}, log)
                .wait(60),
            0);
  auto db = Database::open(made->db);

  ChildProcess submit(
      "submit_graph",
      {"--project_dir", made->project_dir, "--name", "waiting", "--app", "example", "--expression",
       "a = rand(seed=1, shape=(20,20), chunk=(10,10)); result = a.sum()", "--wait", "--poll", "0.2"},
      log);
  auto submitted = [&] { return fetch_graph_by_name(*db, "waiting").has_value(); };
  for (int i = 0; i < 300 && !submitted(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(submitted()) << "no graph submitted";
  db.reset();

  server.halt();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_TRUE(submit.running()) << "submit_graph --wait gave up when the database went away";
  server.start();
  // The graph ends (as the graph scheduler would end it): the waiter must see that.
  db = Database::open(made->db);
  int64_t id = fetch_graph_by_name(*db, "waiting")->id;
  ASSERT_TRUE(update_graph_state(*db, id, GraphState::Running, GraphState::Failed, std::time(nullptr)));
  EXPECT_EQ(submit.wait(60), 1);
  auto text = read_text_file(log);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("database unreachable"), std::string::npos) << *text;
  EXPECT_NE(text->find("graph " + std::to_string(id) + " failed"), std::string::npos) << *text;
}

}  // namespace
}  // namespace tharsis
