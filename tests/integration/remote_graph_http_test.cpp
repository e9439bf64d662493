// Tharsis's extensions of remote submission (submit_graph, query_graph, query_graphs,
// get_graph_output, abort_graph, submit_tasks; docs/remote_submission.md) under a real
// Apache, over real HTTP at <master_url>submit_rpc_handler.php, and get_output.php's
// cmd=graph_output. Hostile requests — another account's graph, no grant, a malformed
// expression or JSON graph, a graph over the operand limit — get a well-formed <error>
// and write nothing (rows and the templates directory compared before and after).
#include <gtest/gtest.h>

#include <filesystem>
#include <pugixml.hpp>

#include "db/graph_store.h"
#include "db/sql.h"
#include "db/state_names.h"
#include "db/submit_grant_store.h"
#include "lib/crypto/md5.h"
#include "lib/operand/graph_compiler.h"
#include "lib/web/graph_progress.h"
#include "tests/support/accounts.h"
#include "tests/support/test_web_server.h"
#include "tools/lib/app_admin.h"

namespace tharsis {
namespace {

using testing::http_get;
using testing::http_post;

const char* kOwnerKey = "graph_owner_key_0123456789";
const char* kOtherKey = "graph_other_key_0123456789";
const char* kNoGrantKey = "graph_nogrant_key_0123456789";
const char* kSum =
    "a = rand(seed=1, shape=(40,40), chunk=(20,20))\n"
    "b = rand(seed=2, shape=(40,40), chunk=(20,20))\n"
    "result = (a @ b).sum()";

class RemoteGraphHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = project_.open();
    auto submitters = testing::add_submitters(*db_, kOwnerKey, kOtherKey, kNoGrantKey);
    owner_ = submitters.owner;
    other_ = submitters.other;
    auto app = ensure_app(*db_, "operand", "bitwise");
    ASSERT_TRUE(app.ok()) << app.error();
    operand_app_ = *app;
    server_ = std::make_unique<testing::TestWebServer>(project_);
    url_ = server_->url(project_.config().name + "/submit_rpc_handler.php");
  }

  // Posts the request as the raw document; the reply must be well-formed XML.
  pugi::xml_node post(const std::string& xml) {
    auto result = http_post(url_, xml);
    EXPECT_EQ(result.status, 200) << result.body;
    reply_ = std::make_unique<pugi::xml_document>();
    EXPECT_TRUE(reply_->load_string(result.body.c_str())) << "not XML: " << result.body.substr(0, 300);
    return reply_->document_element();
  }
  std::string error_of(pugi::xml_node root) {
    pugi::xml_node e = std::string(root.name()) == "error" ? root : root.child("error");
    return e ? std::string(e.child_value("error_msg")) : "";
  }
  // A well-formed error whose message contains `expected`, inside the operation's element.
  void expect_error(const std::string& xml, const std::string& expected) {
    pugi::xml_node root = post(xml);
    std::string message = error_of(root);
    EXPECT_NE(message, "") << "expected an error, got a reply for " << xml.substr(0, 200);
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_EQ(root.child("error").child("error_num").text().as_int(), -1);
  }

  static std::string submit_xml(const std::string& key, const std::string& body) {
    return "<submit_graph>\n<authenticator>" + std::string(key) + "</authenticator>\n" + body +
           "</submit_graph>\n";
  }
  static std::string graph_op(const std::string& op, const std::string& key, int64_t id) {
    return "<" + op + "><authenticator>" + key + "</authenticator><graph_id>" + std::to_string(id) +
           "</graph_id></" + op + ">";
  }
  int64_t submit_ok(const std::string& key, const std::string& body) {
    pugi::xml_node root = post(submit_xml(key, body));
    EXPECT_EQ(error_of(root), "");
    return root.child("graph_id").text().as_llong();
  }

  // What a submission writes: graph, operand and workunit rows, tasks, the templates made.
  std::string snapshot() {
    size_t templates = 0;
    for ([[maybe_unused]] const auto& entry :
         std::filesystem::directory_iterator(project_.config().project_dir + "/templates"))
      ++templates;
    return std::to_string(query_int(*db_, "SELECT COUNT(*) FROM graph")) + "/" +
           std::to_string(query_int(*db_, "SELECT COUNT(*) FROM operand")) + "/" +
           std::to_string(query_int(*db_, "SELECT COUNT(*) FROM workunit")) + "/" +
           std::to_string(query_int(*db_, "SELECT COUNT(*) FROM cluster_task")) + "/" +
           std::to_string(query_int(*db_, "SELECT COALESCE(SUM(state), 0) FROM graph")) + "/" +
           std::to_string(templates);
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<testing::TestWebServer> server_;
  std::unique_ptr<pugi::xml_document> reply_;
  std::string url_;
  int64_t owner_ = 0, other_ = 0, operand_app_ = 0;
};

TEST_F(RemoteGraphHttp, SubmitGraphRecordsItsOwnerAndAnswersItsOperandCount) {
  pugi::xml_node root = post(submit_xml(kOwnerKey, "<graph_name>remote_sum</graph_name>\n<expression>" +
                                                       std::string(kSum) + "</expression>\n"));
  ASSERT_EQ(error_of(root), "");
  EXPECT_EQ(std::string(root.name()), "submit_graph");
  int64_t id = root.child("graph_id").text().as_llong();
  ASSERT_GT(id, 0);
  EXPECT_EQ(std::string(root.child_value("name")), "remote_sum");
  auto compiled = operand::compile_graph(kSum);
  ASSERT_TRUE(compiled.ok());
  const auto operands = static_cast<int64_t>(compiled->chunks.operands.size());
  EXPECT_EQ(root.child("operand_count").text().as_llong(), operands);

  auto graph = fetch_graph(*db_, id);
  ASSERT_TRUE(graph);
  EXPECT_EQ(graph->user_id, owner_);
  EXPECT_EQ(graph->expression, kSum);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM operand WHERE graph_id = ?", id), operands);
  EXPECT_EQ(
      query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE graph_id = ? AND appid = ?", id, operand_app_),
      operands)
      << "each operand's first run is a held workunit of the operand app";

  pugi::xml_node q = post(graph_op("query_graph", kOwnerKey, id)).child("graph");
  EXPECT_EQ(q.child("id").text().as_llong(), id);
  EXPECT_EQ(std::string(q.child_value("state")), "running");
  EXPECT_EQ(q.child("noperands").text().as_llong(), operands);
  EXPECT_EQ(q.child("noperands_finished").text().as_llong(), 0);
  EXPECT_EQ(q.child("fraction_done").text().as_double(), 0.0);
  EXPECT_EQ(q.child("staged_bytes").text().as_llong(), 0);
  EXPECT_EQ(q.child("operands").child("unscheduled").text().as_llong(), operands);
  EXPECT_TRUE(q.child("failure_reason"));
  EXPECT_EQ(std::string(q.child_value("failure_reason")), "");
}

TEST_F(RemoteGraphHttp, TheJsonGraphIsTheSameComputation) {
  const std::string json =
      R"({"tensors": {"a": {"op": "rand", "seed": 1, "shape": [40, 40], "chunk": [20, 20]},)"
      R"( "b": {"op": "rand", "seed": 2, "shape": [40, 40], "chunk": [20, 20]}},)"
      R"( "result": {"op": "sum", "args": [{"op": "matmul", "args": ["a", "b"]}]}})";
  int64_t id = submit_ok(kOwnerKey, "<graph_json>" + json + "</graph_json>");
  ASSERT_GT(id, 0);
  auto compiled = operand::compile_graph(kSum);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM operand WHERE graph_id = ?", id),
            static_cast<int64_t>(compiled->chunks.operands.size()));
  EXPECT_EQ(fetch_graph(*db_, id)->name.rfind("graph_" + std::to_string(owner_) + "_", 0), 0u)
      << "a graph without a name gets graph_<user>_<time>_<random>";
}

TEST_F(RemoteGraphHttp, QueryGraphsListsOnlyTheAccountsOwnGraphs) {
  int64_t mine1 = submit_ok(kOwnerKey, "<expression>" + std::string(kSum) + "</expression>");
  int64_t theirs = submit_ok(kOtherKey, "<expression>" + std::string(kSum) + "</expression>");
  int64_t mine2 =
      submit_ok(kOwnerKey, "<expression>result = rand(seed=3, shape=(4,4), chunk=(2,2)).sum()</expression>");
  pugi::xml_node root =
      post("<query_graphs><authenticator>" + std::string(kOwnerKey) + "</authenticator></query_graphs>");
  std::vector<int64_t> listed;
  for (pugi::xml_node g : root.children("graph")) listed.push_back(g.child("id").text().as_llong());
  EXPECT_EQ(listed, (std::vector<int64_t>{mine2, mine1})) << "newest first, never another's graph " << theirs;
  pugi::xml_node first = root.child("graph");
  EXPECT_GT(first.child("noperands").text().as_llong(), 0);
  EXPECT_EQ(std::string(first.child_value("state")), "running");
}

TEST_F(RemoteGraphHttp, AnotherAccountsGraphIsRefusedForQueryOutputAndAbort) {
  int64_t id = submit_ok(kOwnerKey, "<expression>" + std::string(kSum) + "</expression>");
  std::string before = snapshot();
  for (const char* op : {"query_graph", "get_graph_output", "abort_graph"}) {
    expect_error(graph_op(op, kOtherKey, id), "not owner of graph");
    expect_error(graph_op(op, kOtherKey, id + 1000), "no such graph");
    expect_error(graph_op(op, kNoGrantKey, id), "no submit access");
    expect_error(graph_op(op, "wrong_key", id), "bad authenticator");
  }
  EXPECT_EQ(snapshot(), before);
  EXPECT_EQ(fetch_graph(*db_, id)->state, GraphState::Running);

  // get_output.php: a wrong auth string and a graph that does not exist answer alike.
  std::string base = server_->url(project_.config().name + "/get_output.php?cmd=graph_output&graph_id=");
  auto forged = http_get(base + std::to_string(id) +
                         "&auth_str=" + md5_hex(std::string(kOtherKey) + "graph" + std::to_string(id)));
  auto missing = http_get(base + std::to_string(id + 1000) + "&auth_str=" +
                          md5_hex(std::string(kOwnerKey) + "graph" + std::to_string(id + 1000)));
  EXPECT_EQ(forged.status, 403);
  EXPECT_EQ(missing.status, 403);
  EXPECT_EQ(forged.body, missing.body);
  auto not_done = http_get(base + std::to_string(id) +
                           "&auth_str=" + md5_hex(std::string(kOwnerKey) + "graph" + std::to_string(id)));
  EXPECT_EQ(not_done.status, 404);
  EXPECT_NE(not_done.body.find("not done"), std::string::npos) << not_done.body;
  expect_error(graph_op("get_graph_output", kOwnerKey, id), "running, not done");
}

TEST_F(RemoteGraphHttp, NoGrantForTheAppIsRefusedAndWritesNothing) {
  std::string before = snapshot();
  expect_error(submit_xml(kNoGrantKey, "<expression>" + std::string(kSum) + "</expression>"),
               "no submit access");
  // A grant listing only another app is not a grant for the operand app.
  put_submit_grant(*db_, SubmitGrant{other_, false});
  add_app_grant(*db_, other_, project_.appid());
  expect_error(submit_xml(kOtherKey, "<expression>" + std::string(kSum) + "</expression>"),
               "no submit access");
  expect_error(submit_xml(kOwnerKey, "<app_name>nonesuch</app_name><expression>x</expression>"),
               "app not found: nonesuch");
  EXPECT_EQ(snapshot(), before);
  add_app_grant(*db_, other_, operand_app_);
  EXPECT_GT(submit_ok(kOtherKey, "<expression>" + std::string(kSum) + "</expression>"), 0);
}

TEST_F(RemoteGraphHttp, MalformedExpressionOrJsonGetsAClearErrorAndWritesNothing) {
  std::string before = snapshot();
  expect_error(submit_xml(kOwnerKey,
                          "<expression>a = rand(seed=1, shape=(4,4), chunk=(2,2))\nresult = a @@ a"
                          "</expression>"),
               "line 2");
  expect_error(submit_xml(kOwnerKey, "<expression>result = nosuch(1)</expression>"), "nosuch");
  expect_error(submit_xml(kOwnerKey,
                          "<expression>a = rand(seed=1, shape=(4,4), chunk=(2,2)); "
                          "b = rand(seed=2, shape=(3,3), chunk=(3,3)); result = a + b</expression>"),
               "shape");
  expect_error(submit_xml(kOwnerKey, R"(<graph_json>{"tensors": {"a": </graph_json>)"), "JSON");
  expect_error(submit_xml(kOwnerKey, "<graph_json>[1, 2]</graph_json>"), "expected a JSON object");
  expect_error(submit_xml(kOwnerKey, "<expression>x</expression><graph_json>{}</graph_json>"),
               "exactly one of <expression> and <graph_json>");
  expect_error(submit_xml(kOwnerKey, "<graph_name>x</graph_name>"), "exactly one of");
  expect_error(submit_xml(kOwnerKey, "<expression></expression>"), "is empty");
  expect_error(submit_xml(kOwnerKey,
                          "<graph_name>../up</graph_name><expression>" + std::string(kSum) + "</expression>"),
               "unsafe graph name");
  expect_error(
      submit_xml(kOwnerKey, "<min_quorum>0.5</min_quorum><expression>" + std::string(kSum) + "</expression>"),
      "expected an integer");
  expect_error(submit_xml(kOwnerKey,
                          "<min_quorum>3</min_quorum><target_nresults>2</target_nresults>"
                          "<expression>" +
                              std::string(kSum) + "</expression>"),
               "min_quorum");
  expect_error(submit_xml(kOwnerKey,
                          "<delay_bound>-5</delay_bound><expression>" + std::string(kSum) + "</expression>"),
               "<delay_bound>");
  EXPECT_EQ(snapshot(), before);
  // A name already taken (the graph names are one namespace) rolls back to nothing.
  submit_ok(kOwnerKey, "<graph_name>taken</graph_name><expression>" + std::string(kSum) + "</expression>");
  std::string after_first = snapshot();
  expect_error(submit_xml(kOtherKey,
                          "<graph_name>taken</graph_name><expression>" + std::string(kSum) + "</expression>"),
               "exists already");
  EXPECT_EQ(snapshot(), after_first);
}

TEST_F(RemoteGraphHttp, AGraphOverTheOperandLimitIsRefusedBeforeAnythingIsWritten) {
  std::string before = snapshot();
  // 90,000 chunk operands (limit 20,000): tiled, counted, refused.
  expect_error(submit_xml(kOwnerKey,
                          "<expression>result = rand(seed=1, shape=(300,300), chunk=(1,1))"
                          "</expression>"),
               "more than the limit of 20000");
  // A 200x200 block matmul asks for 8 million block products: refused before tiling it.
  expect_error(submit_xml(kOwnerKey,
                          "<expression>a = rand(seed=1, shape=(200,200), chunk=(1,1)); "
                          "result = a @ a</expression>"),
               "chunk operands; use larger chunks");
  // An expression over the size limit of the element (1 MiB).
  std::string long_text =
      "result = rand(seed=1, shape=(4,4), chunk=(2,2))" + std::string(1100000, ' ') + "+ 1";
  expect_error(submit_xml(kOwnerKey, "<expression>" + long_text + "</expression>"), "longer than the limit");
  EXPECT_EQ(snapshot(), before);
}

TEST_F(RemoteGraphHttp, AbortGraphCancelsTheOwnersGraphOnce) {
  int64_t id = submit_ok(kOwnerKey, "<expression>" + std::string(kSum) + "</expression>");
  pugi::xml_node root = post(graph_op("abort_graph", kOwnerKey, id));
  EXPECT_EQ(error_of(root), "");
  EXPECT_EQ(root.child("success").text().as_int(), 1);
  auto graph = fetch_graph(*db_, id);
  EXPECT_TRUE(graph->state == GraphState::Cancelling || graph->state == GraphState::Cancelled)
      << graph_state_name(graph->state);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE graph_id = ? AND (error_mask & 16) = 0", id),
            0)
      << "every operand's workunit is cancelled, as tools/cancel_graph does";
  pugi::xml_node q = post(graph_op("query_graph", kOwnerKey, id)).child("graph");
  EXPECT_EQ(std::string(q.child_value("failure_reason")), "cancelled");
  EXPECT_EQ(error_of(post(graph_op("abort_graph", kOwnerKey, id))), "")
      << "aborting it again while it is cancelling";
  // Once over, there is nothing to abort.
  exec(*db_, "UPDATE graph SET state = ? WHERE id = ?", GraphState::Cancelled, id);
  expect_error(graph_op("abort_graph", kOwnerKey, id), "over already");
}

TEST_F(RemoteGraphHttp, SubmitTasksRecordsTheOwnerAndIsAllOrNothing) {
  auto task_app = ensure_app(*db_, "task", "bitwise");
  ASSERT_TRUE(task_app.ok());
  auto tasks = [](const std::string& key, const std::vector<std::string>& keys) {
    std::string xml = "<submit_tasks><authenticator>" + key + "</authenticator><app_name>task</app_name>\n";
    for (const auto& k : keys) xml += "<task><key>" + k + "</key><payload>100 " + k + "</payload></task>\n";
    return xml + "</submit_tasks>\n";
  };
  pugi::xml_node root = post(tasks(kOwnerKey, {"t1", "t2", "t3"}));
  ASSERT_EQ(error_of(root), "");
  EXPECT_EQ(root.child("ntasks").text().as_int(), 3);
  EXPECT_EQ(
      query_int(*db_, "SELECT COUNT(*) FROM cluster_task WHERE user_id = ? AND appid = ?", owner_, *task_app),
      3);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM cluster_task WHERE payload = '100 t2'"), 1);

  std::string before = snapshot();
  expect_error(tasks(kOwnerKey, {"t4", "t1"}), "already submitted");
  expect_error(tasks(kOwnerKey, {"t5", "t5"}), "given twice");
  expect_error(tasks(kOwnerKey, {}), "no <task>");
  expect_error(tasks(kNoGrantKey, {"t6"}), "no submit access");
  expect_error(tasks(kOwnerKey, {"with space"}), "without spaces");
  expect_error(
      "<submit_tasks><authenticator>" + std::string(kOwnerKey) +
          "</authenticator><app_name>task</app_name><task><payload>x</payload></task></submit_tasks>",
      "missing <key>");
  EXPECT_EQ(snapshot(), before);
}

}  // namespace
}  // namespace tharsis
