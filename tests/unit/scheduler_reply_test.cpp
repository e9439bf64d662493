// Scheduler reply rendering in the 7.20 client's shape, round trips through our
// client-side parser, escaping, and the error reply.
#include "lib/protocol/scheduler_reply.h"

#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "lib/protocol/client_side.h"

namespace tharsis {
namespace {

SchedulerReply full_reply() {
  SchedulerReply reply;
  reply.master_url = "http://127.0.0.1/tharsis/";
  reply.project_name = "Tharsis Test";
  reply.request_delay = 7;
  reply.messages = {{MessagePriority::Low, "hello"}, {MessagePriority::Notice, "maintenance at 12:00"}};
  ReplyUser user;
  user.userid = 3;
  user.name = "volunteer";
  user.total_credit = 12.5;
  user.expavg_credit = 1.25;
  user.create_time = 1700000000;
  user.cross_project_id = "c0ffee";
  user.external_cpid = "beef";
  user.email_hash = "0123abcd";
  reply.user = user;
  reply.hostid = 42;
  reply.include_host_fields = true;
  reply.host_total_credit = 7.5;
  reply.host_create_time = 1700000100;
  reply.result_acks = {"wu_17_0", "wu_18_1"};
  reply.result_aborts = {"wu_9_0"};
  reply.result_aborts_if_not_started = {"wu_10_0"};
  reply.apps = {{"operand", "Operand kernel", false}};
  ReplyFileInfo exe;
  exe.name = "operand_1.01_x86_64";
  exe.download_urls = {"http://127.0.0.1/tharsis/download/operand_1.01_x86_64"};
  exe.md5_cksum = "d41d8cd98f00b204e9800998ecf8427e";
  exe.nbytes = 123456;
  exe.executable = true;
  exe.file_signature = "0123abcd\n4567ef\n.";
  ReplyFileInfo input;
  input.name = "wu_20_in";
  input.download_urls = {"http://127.0.0.1/tharsis/download/1a/wu_20_in"};
  input.md5_cksum = "0cc175b9c0f1b6a831c399e269772661";
  input.nbytes = 4096;
  input.sticky = true;
  input.no_delete = true;
  ReplyFileInfo output;
  output.name = "wu_20_0_0";
  output.upload_urls = {"http://127.0.0.1/tharsis_cgi/file_upload_handler"};
  output.max_nbytes = 1000000;
  output.xml_signature = "aa55\n.";
  reply.file_infos = {exe, input, output};
  ReplyAppVersion version;
  version.app_name = "operand";
  version.version_num = 101;
  version.platform = "x86_64-pc-linux-gnu";
  version.api_version = "7.20.0";
  version.avg_ncpus = 1;
  version.flops = 4.5e9;
  version.file_refs = {{"operand_1.01_x86_64", "", true, false, false}};
  reply.app_versions = {version};
  ReplyWorkunit wu;
  wu.name = "wu_20";
  wu.app_name = "operand";
  wu.command_line = "--op add --seed 5";
  wu.rsc_fpops_est = 1e12;
  wu.rsc_fpops_bound = 1e13;
  wu.rsc_memory_bound = 1e8;
  wu.rsc_disk_bound = 1e9;
  wu.file_refs = {{"wu_20_in", "in", false, true, false}};
  reply.workunits = {wu};
  ReplyResult result;
  result.name = "wu_20_0";
  result.wu_name = "wu_20";
  result.report_deadline = 1764000000;
  result.platform = "x86_64-pc-linux-gnu";
  result.version_num = 101;
  result.file_refs = {{"wu_20_0_0", "out", false, false, false}};
  reply.results = {result};
  reply.code_sign_key = "1024\n00ff\n.";
  reply.file_deletes = {"old_input"};
  return reply;
}

pugi::xml_node parse_root(pugi::xml_document& doc, const std::string& xml) {
  auto parsed = doc.load_string(xml.c_str());
  EXPECT_TRUE(parsed) << parsed.description() << "\n" << xml;
  return doc.child("scheduler_reply");
}

TEST(SchedulerReply, RendersElementsTheStockClientReads) {
  std::string xml = render_scheduler_reply(full_reply());
  pugi::xml_document doc;
  pugi::xml_node root = parse_root(doc, xml);
  ASSERT_TRUE(root);
  EXPECT_STREQ(root.child_value("scheduler_version"), "720");
  EXPECT_STREQ(root.child_value("project_name"), "Tharsis Test");
  EXPECT_STREQ(root.child_value("hostid"), "42");
  EXPECT_STREQ(root.child_value("user_name"), "volunteer");
  EXPECT_STREQ(root.child_value("request_delay"), "7");
  EXPECT_STREQ(root.child("message").attribute("priority").value(), "low");
  EXPECT_STREQ(root.child("result_ack").child_value("name"), "wu_17_0");
  EXPECT_STREQ(root.child("result_abort").child_value("name"), "wu_9_0");
  EXPECT_STREQ(root.child("result_abort_if_not_started").child_value("name"), "wu_10_0");
  // Booleans in the <tag/> form BOINC's parse_bool reads as true.
  EXPECT_NE(xml.find("<executable/>"), std::string::npos);
  EXPECT_NE(xml.find("<main_program/>"), std::string::npos);
  EXPECT_NE(xml.find("<dont_use_dcf/>"), std::string::npos);
  // Downloads as <url>, uploads as <upload_url> (the client sorts <url> by its text).
  EXPECT_NE(xml.find("<url>http://127.0.0.1/tharsis/download/1a/wu_20_in</url>"), std::string::npos);
  EXPECT_NE(xml.find("<upload_url>http://127.0.0.1/tharsis_cgi/file_upload_handler</upload_url>"),
            std::string::npos);
  // Signatures and the key go out raw, each on its own lines.
  EXPECT_NE(xml.find("<xml_signature>\naa55\n.\n    </xml_signature>"), std::string::npos);
  EXPECT_NE(xml.find("<code_sign_key>\n1024\n00ff\n.\n</code_sign_key>"), std::string::npos);
  pugi::xml_node wu = root.child("workunit");
  EXPECT_STREQ(wu.child_value("rsc_fpops_est"), "1000000000000");
  EXPECT_STREQ(wu.child("file_ref").child_value("open_name"), "in");
  pugi::xml_node result = root.child("result");
  EXPECT_STREQ(result.child_value("report_deadline"), "1764000000");
  EXPECT_STREQ(result.child_value("wu_name"), "wu_20");
  EXPECT_STREQ(root.child("app_version").child_value("platform"), "x86_64-pc-linux-gnu");
}

TEST(SchedulerReply, RoundTripsThroughClientParser) {
  SchedulerReply reply = full_reply();
  auto parsed = parse_scheduler_reply(render_scheduler_reply(reply));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(*parsed, reply);
}

TEST(SchedulerReply, ClientParserSkipsContentTypeHeader) {
  SchedulerReply reply = full_reply();
  auto parsed = parse_scheduler_reply("Content-type: text/xml\n\n" + render_scheduler_reply(reply));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(*parsed, reply);
}

TEST(SchedulerReply, EveryStringIsEscaped) {
  SchedulerReply reply = full_reply();
  const std::string nasty = "a<b>&c\"d'e";
  reply.project_name = nasty;
  reply.messages = {{MessagePriority::High, "</message><hostid>1</hostid>" + nasty}};
  reply.user->name = nasty;
  reply.result_acks = {nasty};
  reply.apps[0].user_friendly_name = nasty;
  reply.file_infos[1].download_urls = {"http://x/?a=1&b=<2>"};
  reply.workunits[0].command_line = "--name \"" + nasty + "\"";
  reply.results[0].wu_name = nasty;  // not the result's name: the client refuses unsafe path names
  reply.results[0].name = "r\"d'e";  // quotes are safe in a name, and escaped
  std::string xml = render_scheduler_reply(reply);
  EXPECT_EQ(xml.find(nasty), std::string::npos);
  pugi::xml_document doc;
  pugi::xml_node root = parse_root(doc, xml);
  EXPECT_EQ(std::distance(root.children("hostid").begin(), root.children("hostid").end()), 1);
  auto parsed = parse_scheduler_reply(xml);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(*parsed, reply);
}

TEST(SchedulerReply, SignatureTextCannotBreakTheDocument) {
  SchedulerReply reply = full_reply();
  reply.file_infos[2].xml_signature = "aa</xml_signature><x>&";
  pugi::xml_document doc;
  EXPECT_TRUE(parse_root(doc, render_scheduler_reply(reply)));
}

// Found by fuzz/scheduler_reply_fuzz.cpp (fuzz/regressions/scheduler_reply/
// signature-with-stray-letter): a dropped leading character left a blank first line, so
// the rendering changed after one parse round trip.
TEST(SchedulerReply, SignatureTextIsTrimmedOnBothEnds) {
  SchedulerReply reply = full_reply();
  reply.file_infos[0].file_signature = "M\n4bb9\n20e4\n.\n  ";
  const std::string xml = render_scheduler_reply(reply);
  EXPECT_NE(xml.find("<file_signature>\n4bb9\n20e4\n.\n    </file_signature>"), std::string::npos) << xml;
  auto parsed = parse_scheduler_reply(xml);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(render_scheduler_reply(*parsed), xml);
  // fuzz/regressions/scheduler_reply/signature-without-hex: no hex left, no element.
  reply.code_sign_key_signature = "\xf6\xcf\x9e\xce\x9d";
  EXPECT_EQ(render_scheduler_reply(reply).find("<code_sign_key_signature>"), std::string::npos);
}

TEST(SchedulerReply, ErrorReplyCarriesMessageAndDelay) {
  SchedulerReply reply = make_error_reply("Tharsis", "Error in request message: <hostid> not a number", 3600);
  std::string xml = render_scheduler_reply(reply);
  EXPECT_NE(
      xml.find("<message priority=\"high\">Error in request message: &lt;hostid&gt; not a number</message>"),
      std::string::npos);
  EXPECT_NE(xml.find("<request_delay>3600</request_delay>"), std::string::npos);
  EXPECT_EQ(xml.find("<result"), std::string::npos);
  auto parsed = parse_scheduler_reply(xml);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(*parsed, reply);
}

TEST(SchedulerReply, ProjectDownReplyStopsAfterHeader) {
  SchedulerReply reply = full_reply();
  reply.project_is_down = true;
  std::string xml = render_scheduler_reply(reply);
  EXPECT_NE(xml.find("<project_is_down/>"), std::string::npos);
  EXPECT_EQ(xml.find("<result_ack>"), std::string::npos);
  EXPECT_EQ(xml.find("<hostid>"), std::string::npos);
}

TEST(SchedulerReply, ClientParserRejectsBadReplies) {
  EXPECT_FALSE(parse_scheduler_reply("<html>oops</html>").ok());
  auto wrong = parse_scheduler_reply("<scheduler_reply><hostid>x</hostid></scheduler_reply>");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().find("scheduler_reply/hostid"), std::string::npos) << wrong.error();
  std::string text = render_scheduler_reply(full_reply());
  EXPECT_FALSE(parse_scheduler_reply(text.substr(0, text.size() / 2)).ok());
}

}  // namespace
}  // namespace tharsis
