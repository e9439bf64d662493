// config.xml for several database nodes and a read replica: <db_nodes> parsing and its
// errors, the node an instance picks (select_db_node, THARSIS_DB_NODE) and the ring of
// fall-backs, BOINC's replica_db_* defaults, and the render -> parse round trip.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "lib/config/project_config.h"
#include "lib/web/status_cgi.h"
#include "tests/unit/project_config_fixture.h"

namespace tharsis::db_nodes_config_test {
namespace {

// The minimal config.xml with the primary's password "pw".
std::string config_with(const std::string& extra) {
  return test::config_with("  <db_passwd>pw</db_passwd>\n" + extra);
}

const std::string kThreeNodes =
    "<db_nodes>\n  <node>/run/n1.sock</node>\n  <node>db2.local:3307</node>\n  <node>db3.local</node>\n"
    "</db_nodes>\n<db_port>3310</db_port>\n";

TEST(DbNodesConfig, WithoutDbNodesOneServerAndNoFallbacks) {
  auto c = parse_project_config(config_with("<db_socket>/run/db.sock</db_socket>"));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_TRUE(c->db_nodes.empty());
  EXPECT_TRUE(c->db.fallbacks.empty());
  EXPECT_EQ(c->db.socket, "/run/db.sock");
  EXPECT_TRUE(select_db_node(*c, 1).ok());
  auto other = select_db_node(*c, 2);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().find("no <db_nodes>"), std::string::npos) << other.error();
}

TEST(DbNodesConfig, NodesParsedSocketOrHostPortWithDbPortAsDefault) {
  auto c = parse_project_config(config_with(kThreeNodes));
  ASSERT_TRUE(c.ok()) << c.error();
  ASSERT_EQ(c->db_nodes.size(), 3u);
  EXPECT_EQ(c->db_nodes[0], (DbEndpoint{"", 0, "/run/n1.sock"}));
  EXPECT_EQ(c->db_nodes[1], (DbEndpoint{"db2.local", 3307, ""}));
  EXPECT_EQ(c->db_nodes[2], (DbEndpoint{"db3.local", 3310, ""}));  // <db_port> given after the list
  // By default the instance uses node 1, the others as fall-backs in order.
  EXPECT_EQ(c->db.endpoint(), c->db_nodes[0]);
  ASSERT_EQ(c->db.fallbacks.size(), 2u);
  EXPECT_EQ(c->db.fallbacks[0], c->db_nodes[1]);
  EXPECT_EQ(c->db.fallbacks[1], c->db_nodes[2]);
  // Credentials are shared by every node.
  EXPECT_EQ(c->db.user, "boincadm");
  EXPECT_EQ(c->db.password, "pw");
  EXPECT_EQ(c->db.name, "demo");
}

TEST(DbNodesConfig, SelectingANodeMakesTheOthersARingOfFallbacks) {
  auto c = parse_project_config(config_with(kThreeNodes));
  ASSERT_TRUE(c.ok()) << c.error();
  ASSERT_TRUE(select_db_node(*c, 2).ok());
  EXPECT_EQ(c->db.endpoint(), c->db_nodes[1]);
  ASSERT_EQ(c->db.fallbacks.size(), 2u);
  EXPECT_EQ(c->db.fallbacks[0], c->db_nodes[2]);
  EXPECT_EQ(c->db.fallbacks[1], c->db_nodes[0]);
  ASSERT_TRUE(select_db_node(*c, 3).ok());
  EXPECT_EQ(c->db.endpoint(), c->db_nodes[2]);
  EXPECT_EQ(c->db.fallbacks[0], c->db_nodes[0]);
  EXPECT_EQ(c->db.fallbacks[1], c->db_nodes[1]);
  for (int bad : {0, 4, -1}) {
    auto status = select_db_node(*c, bad);
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.error().find("lists 3 (1..3)"), std::string::npos) << status.error();
  }
}

TEST(DbNodesConfig, BadListsRejectedWithTheElementNamed) {
  struct Case {
    std::string extra, expected;
  } cases[] = {
      {"<db_nodes></db_nodes>", "<db_nodes> expected at least one <node>"},
      {"<db_nodes><host>x</host></db_nodes>", "<db_nodes> expected only <node> elements, found '<host>'"},
      {"<db_nodes><node>db:abc</node></db_nodes>", "<db_nodes> expected <node> as /socket/path or host:port"},
      {"<db_nodes><node>db:70000</node></db_nodes>", "'70000'"},
      {"<db_nodes><node></node></db_nodes>", "<db_nodes> expected <node> as /socket/path or host[:port]"},
      {"<db_nodes><node>a:1</node><node>a:1</node></db_nodes>", "<db_nodes> expected each <node> once"},
      {"<db_nodes><node>a:1</node></db_nodes><db_host>b</db_host>", "<db_host> and <db_nodes> both given"},
      {"<db_nodes><node>a:1</node></db_nodes><db_socket>/x</db_socket>",
       "<db_socket> and <db_nodes> both given"},
      {"<db_nodes><node>a:1</node></db_nodes><db_nodes><node>b:1</node></db_nodes>",
       "<db_nodes> given twice"},
      {"<replica_db_port>0</replica_db_port>", "<replica_db_port> expected a TCP port 1..65535"},
  };
  for (const Case& test : cases) {
    auto c = parse_project_config(config_with(test.extra));
    ASSERT_FALSE(c.ok()) << test.extra;
    EXPECT_NE(c.error().find(test.expected), std::string::npos) << c.error();
    EXPECT_EQ(c.error().rfind("config.xml: ", 0), 0u) << c.error();
  }
}

TEST(DbNodesConfig, ReplicaAbsentMeansThePrimary) {
  auto c = parse_project_config(config_with(kThreeNodes));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_FALSE(has_replica_db(*c));
  DbConfig replica = replica_db_config(*c);
  EXPECT_EQ(replica.endpoint(), c->db.endpoint());
  EXPECT_EQ(replica.fallbacks.size(), 2u);
}

TEST(DbNodesConfig, ReplicaSettingsMissingOnesFromThePrimaryAsInBoinc) {
  auto c =
      parse_project_config(config_with("<db_host>primary</db_host><db_port>3306</db_port>"
                                       "<replica_db_host>replica</replica_db_host>"
                                       "<replica_db_user>reader</replica_db_user>"));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_TRUE(has_replica_db(*c));
  DbConfig replica = replica_db_config(*c);
  EXPECT_EQ(replica.host, "replica");
  EXPECT_EQ(replica.port, 3306);
  EXPECT_EQ(replica.socket, "");
  EXPECT_EQ(replica.user, "reader");
  EXPECT_EQ(replica.password, "pw");  // not given: the primary's
  EXPECT_EQ(replica.name, "demo");
  EXPECT_TRUE(replica.fallbacks.empty());

  auto s =
      parse_project_config(config_with("<replica_db_socket>/run/replica.sock</replica_db_socket>"
                                       "<replica_db_name>demo_copy</replica_db_name>"
                                       "<replica_db_passwd>rpw</replica_db_passwd>"));
  ASSERT_TRUE(s.ok()) << s.error();
  DbConfig by_socket = replica_db_config(*s);
  EXPECT_EQ(by_socket.socket, "/run/replica.sock");
  EXPECT_EQ(by_socket.name, "demo_copy");
  EXPECT_EQ(by_socket.user, "boincadm");
  EXPECT_EQ(by_socket.password, "rpw");
}

TEST(DbNodesConfig, StatusPagesReadTheReplicaTheUploadHandlerThePrimary) {
  auto plain =
      parse_project_config(config_with("<db_socket>/run/primary.sock</db_socket>"
                                       "<web_db_user>web</web_db_user><web_db_passwd>wpw</web_db_passwd>"));
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_EQ(status_page_read_db(*plain).socket, "/run/primary.sock");  // no replica: the primary
  EXPECT_EQ(status_page_read_db(*plain).user, "web");

  auto replicated =
      parse_project_config(config_with("<db_socket>/run/primary.sock</db_socket>"
                                       "<replica_db_socket>/run/replica.sock</replica_db_socket>"
                                       "<web_db_user>web</web_db_user>"));
  ASSERT_TRUE(replicated.ok()) << replicated.error();
  DbConfig pages = status_page_read_db(*replicated);
  EXPECT_EQ(pages.socket, "/run/replica.sock");
  EXPECT_EQ(pages.user, "web");
  EXPECT_EQ(status_page_db(*replicated).socket, "/run/primary.sock");  // the upload handler's
}

TEST(DbNodesConfig, RenderRoundTripKeepsNodesAndReplica) {
  auto c = parse_project_config(config_with(kThreeNodes + "<replica_db_host>r</replica_db_host>"
                                                          "<replica_db_port>3399</replica_db_port>"
                                                          "<replica_db_user>ro</replica_db_user>"));
  ASSERT_TRUE(c.ok()) << c.error();
  std::string text = render_project_config(*c);
  EXPECT_EQ(text.find("<db_host>"), std::string::npos) << text;
  auto again = parse_project_config(text);
  ASSERT_TRUE(again.ok()) << again.error() << "\n" << text;
  EXPECT_EQ(again->db_nodes, c->db_nodes);
  EXPECT_EQ(again->db.endpoint(), c->db.endpoint());
  EXPECT_EQ(again->db.fallbacks, c->db.fallbacks);
  EXPECT_EQ(again->replica.host, "r");
  EXPECT_EQ(again->replica.port, 3399);
  EXPECT_EQ(again->replica.user, "ro");
  EXPECT_EQ(replica_db_config(*again).port, 3399);
}

TEST(DbNodesConfig, LoadHonoursTharsisDbNode) {
  auto dir = std::filesystem::temp_directory_path() / ("tharsis-dbnodes-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "config.xml").string();
  std::ofstream(path) << config_with(kThreeNodes);

  ::setenv("THARSIS_DB_NODE", "3", 1);
  auto third = load_project_config(path);
  ::setenv("THARSIS_DB_NODE", "9", 1);
  auto missing = load_project_config(path);
  ::setenv("THARSIS_DB_NODE", "two", 1);
  auto junk = load_project_config(path);
  ::unsetenv("THARSIS_DB_NODE");
  auto first = load_project_config(path);
  std::filesystem::remove_all(dir);

  ASSERT_TRUE(third.ok()) << third.error();
  EXPECT_EQ(third->db.endpoint(), (DbEndpoint{"db3.local", 3310, ""}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("THARSIS_DB_NODE: database node 9 does not exist"), std::string::npos)
      << missing.error();
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.error().find("THARSIS_DB_NODE expected a node number, found 'two'"), std::string::npos)
      << junk.error();
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->db.endpoint(), (DbEndpoint{"", 0, "/run/n1.sock"}));
}

// Several scheduler hosts: <scheduler_urls> lists them for the master page.
TEST(SchedulerUrlsConfig, DefaultIsTheOneCgiSchedulerAndAListIsKeptInOrderThroughARender) {
  auto plain = parse_project_config(config_with(""));
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_EQ(project_scheduler_urls(*plain), std::vector<std::string>{"http://127.0.0.1:8080/demo_cgi/cgi"});
  auto two = parse_project_config(config_with(
      "<scheduler_urls><url>http://s2.local/demo_cgi/fcgi</url>\n<url>http://s1.local/demo_cgi/cgi</url>"
      "</scheduler_urls>\n"));
  ASSERT_TRUE(two.ok()) << two.error();
  const std::vector<std::string> expected{"http://s2.local/demo_cgi/fcgi", "http://s1.local/demo_cgi/cgi"};
  EXPECT_EQ(project_scheduler_urls(*two), expected);
  auto again = parse_project_config(render_project_config(*two));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->scheduler_urls, expected);
}

TEST(SchedulerUrlsConfig, BadListsRejectedWithTheElementNamed) {
  for (const char* bad :
       {"<scheduler_urls></scheduler_urls>", "<scheduler_urls><url>ftp://x/cgi</url></scheduler_urls>",
        "<scheduler_urls><host>http://x/cgi</host></scheduler_urls>",
        "<scheduler_urls><url>http://x/cgi</url><url>http://x/cgi</url></scheduler_urls>"}) {
    auto parsed = parse_project_config(config_with(std::string(bad) + "\n"));
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.error().find("scheduler_urls"), std::string::npos) << parsed.error();
  }
}

}  // namespace
}  // namespace tharsis::db_nodes_config_test
