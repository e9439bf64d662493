// An operand graph submitted from a submitter's machine, end to end over real HTTP with
// the daemons, the graph scheduler and simulated volunteers running: tharsis-submit (no
// config.xml, no database access) submits (a @ b).sum(axis=0) through
// <master_url>submit_rpc_handler.php, watches it with query_graph until it is done and
// saves the result from get_output.php; the .npy matches a local direct evaluation of the
// expression (lib/operand/direct_evaluator.h) to 1e-9, and get_graph_output's base64
// copy, the reply's output_url and `tharsis-submit graph output` give the same bytes.
#include <gtest/gtest.h>

#include <chrono>
#include <pugixml.hpp>
#include <thread>

#include "db/graph_store.h"
#include "db/submit_grant_store.h"
#include "db/user_store.h"
#include "lib/base64.h"
#include "lib/crypto/md5.h"
#include "lib/operand/direct_evaluator.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/npy.h"
#include "lib/text_file.h"
#include "tests/support/child_process.h"
#include "tests/support/live_project.h"
#include "tools/lib/checker.h"

namespace tharsis::remote_graph_lifecycle_test {
namespace {

using testing::LiveProject;

const std::string kExpression =
    "a = rand(seed=11, shape=(60,40), chunk=(20,20)); b = rand(seed=12, shape=(40,60), chunk=(20,20)); "
    "result = (a @ b).sum(axis=0)";

TEST(RemoteGraphLifecycle, MatmulSubmittedWatchedAndFetchedByTharsisSubmitMatchesALocalEvaluation) {
  LiveProject live;
  live.publish_app("operand", "operand_app");
  std::string key = live.add_volunteer("scientist");
  int64_t user_id = fetch_user_by_authenticator(live.db(), key)->id;
  put_submit_grant(live.db(), SubmitGrant{user_id, true});
  std::string other_key = live.add_volunteer("bystander");
  put_submit_grant(live.db(), SubmitGrant{fetch_user_by_authenticator(live.db(), other_key)->id, true});
  const std::string base = live.url(live.config().name + "/");
  testing::TempDir data("tharsis-remote-graph");
  const std::string saved = data.path() + "/mm.npy";

  testing::ChildProcess submitter(
      "tharsis-submit",
      {"--url", base, "--authenticator", key, "graph", "submit", "--graph_name", "remote_mm", "--expression",
       kExpression, "--wait", "--out", saved, "--poll", "0.5"},
      live.config().log_dir + "/tharsis-submit.log");
  std::optional<GraphRow> graph;
  for (int i = 0; i < 300 && !graph; ++i) {
    graph = fetch_graph_by_name(live.db(), "remote_mm");
    if (!graph) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(graph) << "the graph was not submitted; see log/tharsis-submit.log";
  EXPECT_EQ(graph->user_id, user_id);

  live.start_daemons();
  live.start_daemon("graph_scheduler", {"--prefer_seconds", "2"});
  std::vector<std::string> args = live.simulation_args("gvol", {"ncpus=2", "ncpus=2", "ncpus=2"}, 170);
  args.push_back("--until_settled");
  auto client = live.start_client("graph_simulation", data.path(), args);
  EXPECT_EQ(submitter.wait(180), 0) << "tharsis-submit --wait failed; see log/tharsis-submit.log";
  EXPECT_EQ(client->wait(120), 0) << "see log/graph_simulation.log";
  EXPECT_TRUE(live.stop_daemons());

  // The answer against a direct evaluation of the expression on this machine.
  auto answer = operand::read_npy(saved);
  ASSERT_TRUE(answer.ok()) << answer.error();
  auto direct = operand::evaluate_directly(*operand::parse_submission(kExpression));
  ASSERT_TRUE(direct.ok()) << direct.error();
  EXPECT_EQ(answer->shape, direct->shape);
  auto difference = operand::max_relative_difference(*answer, *direct);
  ASSERT_TRUE(difference.ok()) << difference.error();
  EXPECT_LE(*difference, 1e-9);
  auto file_bytes = read_text_file(saved);
  ASSERT_TRUE(file_bytes.ok());

  // query_graph: done, every operand finished, no failure.
  const std::string url = base + "submit_rpc_handler.php";
  auto call = [&](const std::string& xml) {
    auto doc = std::make_unique<pugi::xml_document>();
    auto reply = testing::http_post(url, xml);
    EXPECT_TRUE(doc->load_string(reply.body.c_str())) << reply.body.substr(0, 300);
    EXPECT_FALSE(doc->document_element().child("error")) << reply.body.substr(0, 300);
    return doc;
  };
  const std::string ref =
      "<authenticator>" + key + "</authenticator><graph_id>" + std::to_string(graph->id) + "</graph_id>";
  auto query = call("<query_graph>" + ref + "</query_graph>");
  pugi::xml_node g = query->document_element().child("graph");
  EXPECT_EQ(std::string(g.child_value("state")), "done");
  EXPECT_EQ(g.child("fraction_done").text().as_double(), 1.0);
  EXPECT_EQ(g.child("noperands_finished").text().as_llong(), g.child("noperands").text().as_llong());
  EXPECT_EQ(std::string(g.child_value("failure_reason")), "");

  // get_graph_output: the same bytes in base64, and a URL that serves them.
  auto output = call("<get_graph_output>" + ref + "</get_graph_output>");
  pugi::xml_node o = output->document_element();
  auto decoded = base64_decode(o.child_value("npy_base64"));
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  EXPECT_EQ(*decoded, *file_bytes);
  EXPECT_EQ(std::string(o.child_value("md5")), md5_hex(*file_bytes));
  auto fetched = testing::http_get(o.child_value("output_url"));
  EXPECT_EQ(fetched.status, 200);
  EXPECT_EQ(fetched.body, *file_bytes);
  auto forged =
      testing::http_get(base + "get_output.php?cmd=graph_output&graph_id=" + std::to_string(graph->id) +
                        "&auth_str=" + md5_hex(other_key + "graph" + std::to_string(graph->id)));
  EXPECT_EQ(forged.status, 403);

  // tharsis-submit graph output and graph query.
  testing::ChildProcess downloader("tharsis-submit",
                                   {"--url", base, "--authenticator", key, "graph", "output",
                                    std::to_string(graph->id), data.path() + "/again.npy"},
                                   live.config().log_dir + "/tharsis-submit-output.log");
  EXPECT_EQ(downloader.wait(60), 0);
  auto again = read_text_file(data.path() + "/again.npy");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *file_bytes);
  testing::ChildProcess stranger(
      "tharsis-submit",
      {"--url", base, "--authenticator", other_key, "graph", "query", std::to_string(graph->id)},
      live.config().log_dir + "/tharsis-submit-stranger.log");
  EXPECT_EQ(stranger.wait(60), 1) << "another account's graph is refused";

  CheckReport report = check_project(live.db(), live.config(), std::time(nullptr), /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
}

}  // namespace
}  // namespace tharsis::remote_graph_lifecycle_test
