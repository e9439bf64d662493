// The pure pieces of remote graph submission: base64 (get_graph_output's inline .npy),
// tharsis-submit's graph and task requests (client/tharsis-submit/graph_commands.h), the
// task file shared with tools/submit_tasks, and the failure words of query_graph.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "client/tharsis-submit/graph_commands.h"
#include "db/states.h"
#include "lib/base64.h"
#include "lib/crypto/md5.h"
#include "tools/lib/graph_result.h"

namespace tharsis {
namespace {

TEST(Base64, EncodesTheRfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
}

TEST(Base64, DecodingRoundTripsEveryByteValue) {
  std::string bytes;
  for (int i = 0; i < 256 * 3 + 1; ++i) bytes += static_cast<char>(i * 7 % 256);
  for (size_t length : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, bytes.size()}) {
    auto decoded = base64_decode(base64_encode(bytes.substr(0, length)));
    ASSERT_TRUE(decoded.ok()) << decoded.error();
    EXPECT_EQ(*decoded, bytes.substr(0, length));
  }
  auto wrapped = base64_decode("Zm9v\nYmFy\n");
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(*wrapped, "foobar");
}

TEST(Base64, MalformedTextIsAnError) {
  for (const char* bad : {"Zm9", "Zm=v", "Zg==Zg==", "Zm9v!", "=Zg=", "Zg==x"}) {
    EXPECT_FALSE(base64_decode(bad).ok()) << bad;
  }
}

TEST(GraphClient, SubmitGraphRequestEscapesTheExpressionAndNamesTheForm) {
  submit_client::GraphSubmitOptions options;
  options.app = "operand";
  options.graph_name = "g1";
  options.text = "a = rand(seed=1, shape=(4,4), chunk=(2,2)); result = (a < a) & a";
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(submit_client::submit_graph_xml("k<ey", options).c_str()));
  pugi::xml_node root = doc.document_element();
  EXPECT_EQ(std::string(root.name()), "submit_graph");
  EXPECT_EQ(std::string(root.child_value("authenticator")), "k<ey");
  EXPECT_EQ(std::string(root.child_value("expression")), options.text);
  EXPECT_FALSE(root.child("graph_json"));
  options.json = true;
  options.text = R"({"result": 1})";
  ASSERT_TRUE(doc.load_string(submit_client::submit_graph_xml("k", options).c_str()));
  EXPECT_EQ(std::string(doc.document_element().child_value("graph_json")), options.text);
}

TEST(GraphClient, GraphRequestsAndTheOutputAuthString) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(submit_client::graph_xml("abort_graph", "key", "12").c_str()));
  EXPECT_EQ(std::string(doc.document_element().name()), "abort_graph");
  EXPECT_EQ(doc.document_element().child("graph_id").text().as_int(), 12);
  ASSERT_TRUE(doc.load_string(submit_client::graph_xml("query_graphs", "key", "").c_str()));
  EXPECT_FALSE(doc.document_element().child("graph_id"));
  EXPECT_EQ(submit_client::graph_output_query("key", "12"),
            "get_output.php?cmd=graph_output&graph_id=12&auth_str=" + md5_hex("keygraph12"));
}

TEST(GraphClient, TasksFileBecomesOneTaskElementEach) {
  auto tasks = parse_task_file("# comment\nt1 100 t1\n\nt2 5 & t2\n");
  ASSERT_TRUE(tasks.ok()) << tasks.error();
  ASSERT_EQ(tasks->size(), 2u);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(submit_client::submit_tasks_xml("key", "task", *tasks).c_str()));
  std::vector<std::string> payloads;
  for (pugi::xml_node t : doc.document_element().children("task"))
    payloads.push_back(t.child_value("payload"));
  EXPECT_EQ(payloads, (std::vector<std::string>{"100 t1", "5 & t2"}));
  EXPECT_FALSE(parse_task_file("bad\tkey x\n").ok());
}

TEST(GraphProgress, FailureNamesTheWorkunitErrorBits) {
  EXPECT_EQ(error_mask_words(kWuErrorTooManyErrorResults), "too many error results");
  EXPECT_EQ(error_mask_words(kWuErrorTooManyTotalResults | kWuErrorCancelled),
            "too many total results, cancelled");
  EXPECT_EQ(error_mask_words(0), "error mask 0");
}

}  // namespace
}  // namespace tharsis
