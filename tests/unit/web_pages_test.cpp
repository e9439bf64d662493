// The whole status pages (lib/web/*_render.h): each parses as XML (our HTML is written
// well-formed), shows hostile names as text only, links the one stylesheet, marks its nav
// entry, and shows the numbers of its model.
#include <gtest/gtest.h>

#include <pugixml.hpp>
#include <string>

#include "db/state_names.h"
#include "lib/web/graphs_render.h"
#include "lib/web/page.h"
#include "lib/web/recluster_render.h"
#include "lib/web/server_status_render.h"
#include "lib/web/state_colours.h"
#include "lib/web/volunteers_render.h"

namespace tharsis::web_pages_test {
namespace {

const std::string kHostile = "<script>alert(\"x\")</script> & 'q'";

PageContext context() {
  PageContext ctx;
  ctx.project_name = "proj " + kHostile;
  ctx.now = 1'800'000'000;
  ctx.base_url = "/cgi/";
  return ctx;
}

// All text of the document, concatenated (what a reader sees, entities decoded).
std::string all_text(const pugi::xml_node& node) {
  std::string out;
  for (const pugi::xml_node& child : node.children()) {
    if (child.type() == pugi::node_pcdata) out += child.value();
    out += all_text(child);
  }
  return out;
}

// Parses the page and checks what every page must have.
pugi::xml_document check_page(const std::string& html, PageId page) {
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos) << "unescaped markup in page";
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_string(html.c_str());
  EXPECT_TRUE(parsed) << parsed.description() << " at offset " << parsed.offset;
  EXPECT_EQ(doc.select_nodes("//link[@rel='stylesheet'][@href='tharsis.css']").size(), 1u);
  const auto current = doc.select_nodes("//nav/a[@class='current']");
  EXPECT_EQ(current.size(), 1u);
  if (current.size() == 1) {
    EXPECT_EQ(std::string(current[0].node().attribute("href").value()),
              "/cgi/" + std::string(page_program(page)));
  }
  EXPECT_EQ(doc.select_nodes("//nav/a").size(), 4u);
  EXPECT_NE(std::string(doc.select_node("//title").node().text().get()).find(kHostile), std::string::npos);
  EXPECT_NE(all_text(doc.select_node("//footer").node()).find("2027-01-15 08:00:00 UTC"), std::string::npos);
  return doc;
}

TEST(WebPages, Format_UtcTimeAndDurations) {
  EXPECT_EQ(format_utc_time(0), "never");
  EXPECT_EQ(format_utc_time(1'800'000'000), "2027-01-15 08:00:00 UTC");
  EXPECT_EQ(format_duration(-5), "0 s");
  EXPECT_EQ(format_duration(59), "59 s");
  EXPECT_EQ(format_duration(300), "5 min");
  EXPECT_EQ(format_duration(7800), "2 h 10 min");
  EXPECT_EQ(format_duration(3 * 86400 + 7200), "3 d 2 h");
}

TEST(WebPages, ServerStatus_ShowsDaemonsQueuesAndResultsEscaped) {
  ServerStatus status;
  status.db_reachable = true;
  status.daemons.push_back({"validator " + kHostile, "host " + kHostile, 321, true, 1'800'000'000 - 90});
  status.daemons.push_back({"assimilator", "h2", 0, false, 0});
  status.queues.push_back({"transition", 12, 3700});
  status.results.push_back({4, 0, 17});
  status.results.push_back({5, 1, 25});
  const std::string html = render_server_status_html(status, context());
  auto doc = check_page(html, PageId::ServerStatus);
  const std::string text = all_text(doc);
  EXPECT_NE(text.find("validator " + kHostile), std::string::npos);
  EXPECT_NE(text.find("host " + kHostile), std::string::npos);
  EXPECT_NE(text.find("1 min"), std::string::npos);  // heartbeat age 90 s
  EXPECT_NE(text.find("not running"), std::string::npos);
  EXPECT_NE(text.find("1 h 1 min"), std::string::npos);  // oldest transition item
  EXPECT_NE(text.find("IN_PROGRESS"), std::string::npos);
  EXPECT_NE(text.find("SUCCESS"), std::string::npos);
  EXPECT_EQ(std::string(doc.select_node("//tfoot//td").node().text().get()), "42");  // total results
  EXPECT_EQ(doc.select_nodes("//p[contains(@class,'banner ok')]").size(), 1u);
}

// A reachable server status with results from a census snapshot taken 35 s before now.
ServerStatus census_status_page(bool present, bool stale) {
  ServerStatus status;
  status.db_reachable = true;
  status.results.push_back({5, 1, 25});
  status.census.present = present;
  if (present) {
    status.census.taken_at = 1'800'000'000 - 35;
    status.census.duration_seconds = 0.4;
    status.census.interval_seconds = 60;
  }
  status.census.stale = stale;
  if (stale) status.census.stale_reason = "the census daemon is not running " + kHostile;
  return status;
}

TEST(WebPages, ServerStatus_ResultsSayWhenTheCensusCountedThem) {
  auto doc =
      check_page(render_server_status_html(census_status_page(true, false), context()), PageId::ServerStatus);
  const auto section = doc.select_node("//section[@id='results']").node();
  ASSERT_TRUE(section);
  EXPECT_STREQ(section.attribute("data-source").value(), "census");
  EXPECT_STREQ(section.attribute("data-as-of").value(), "1799999965");
  const auto note = doc.select_node("//section[@id='results']/p[@class='census']").node();
  ASSERT_TRUE(note);
  const std::string text = all_text(note);
  EXPECT_NE(text.find("2027-01-15 07:59:25 UTC (35 s ago)"), std::string::npos) << text;
  EXPECT_NE(text.find("in 0.40 s"), std::string::npos) << text;
  EXPECT_NE(text.find("every 1 min"), std::string::npos) << text;
  // The counts themselves keep their place: the table after the heading, total in tfoot.
  EXPECT_STREQ(doc.select_node("//h2[text()='Results by state']/following-sibling::table[1]/tfoot//td")
                   .node()
                   .text()
                   .get(),
               "25");
}

TEST(WebPages, ServerStatus_StaleCensusIsWarnedWithItsReasonEscaped) {
  auto doc =
      check_page(render_server_status_html(census_status_page(true, true), context()), PageId::ServerStatus);
  const auto note = doc.select_node("//p[@class='census stale']").node();
  ASSERT_TRUE(note);
  const std::string text = all_text(note);
  EXPECT_EQ(text.rfind("Stale:", 0), 0u) << text;
  EXPECT_NE(text.find("35 s ago"), std::string::npos) << text;
  EXPECT_NE(text.find("not running " + kHostile), std::string::npos) << text;
}

TEST(WebPages, ServerStatus_NoSnapshotSaysTheResultsWereCountedLive) {
  auto doc = check_page(render_server_status_html(census_status_page(false, false), context()),
                        PageId::ServerStatus);
  EXPECT_STREQ(doc.select_node("//section[@id='results']").node().attribute("data-source").value(), "live");
  EXPECT_STREQ(doc.select_node("//section[@id='results']").node().attribute("data-as-of").value(),
               "1800000000");
  const auto note = doc.select_node("//p[@class='census live']").node();
  ASSERT_TRUE(note);
  EXPECT_NE(all_text(note).find("Counted live"), std::string::npos);
  EXPECT_EQ(doc.select_nodes("//p[@class='census']").size(), 0u);
}

TEST(WebPages, ServerStatus_CappedQueueShowsAtLeastAndTheCensusCount) {
  ServerStatus status = census_status_page(true, false);
  status.queues.push_back({"transition", 10000, 60, true, 250000});
  status.queues.push_back({"validation", 10000, 60, true, -1});
  status.queues.push_back({"assimilation", 7, 60, false, -1});
  auto doc = check_page(render_server_status_html(status, context()), PageId::ServerStatus);
  const auto table = "//h2[text()='Queue backlogs']/following-sibling::table[1]/tbody";
  EXPECT_EQ(all_text(doc.select_node((std::string(table) + "/tr[1]/td[2]").c_str()).node()),
            "\u2265 10000 (census: 250000)");
  EXPECT_EQ(all_text(doc.select_node((std::string(table) + "/tr[2]/td[2]").c_str()).node()), "\u2265 10000");
  EXPECT_EQ(all_text(doc.select_node((std::string(table) + "/tr[3]/td[2]").c_str()).node()), "7");
  EXPECT_NE(all_text(doc).find("up to 10000 items; the exact count in parentheses is the census daemon's, at "
                               "2027-01-15 07:59:25 UTC."),
            std::string::npos);
  // Without a snapshot there is no census count to speak of.
  status.census = CensusStatus{};
  status.queues[0].census_count = -1;
  doc = check_page(render_server_status_html(status, context()), PageId::ServerStatus);
  const std::string text = all_text(doc);
  EXPECT_NE(text.find("up to 10000 items."), std::string::npos);
  EXPECT_EQ(text.find("census: "), std::string::npos);
}

TEST(WebPages, ServerStatus_UnreachableDatabaseShowsEscapedReason) {
  ServerStatus status;
  status.db_reachable = false;
  status.db_error = "connect failed: " + kHostile;
  auto doc = check_page(render_server_status_html(status, context()), PageId::ServerStatus);
  const auto banner = doc.select_node("//p[contains(@class,'banner error')]").node();
  ASSERT_TRUE(banner);
  EXPECT_NE(all_text(banner).find(status.db_error), std::string::npos);
}

TEST(WebPages, GraphsList_ShowsProgressBarsAndCountsPerState) {
  GraphSummary graph;
  graph.id = 5;
  graph.name = "matmul " + kHostile;
  graph.state = "running";
  graph.operands_by_state = {
      {OperandState::Finished, 3}, {OperandState::Running, 2}, {OperandState::Fatal, 1}};
  graph.progress = 0.5;
  GraphSummary done{6, "done", "finished", {{OperandState::Freed, 4}}, 1.7};  // clamped to 100%
  auto doc = check_page(render_graphs_list_html({graph, done}, context()), PageId::Graphs);
  const auto bars = doc.select_nodes("//div[@class='bar']");
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_STREQ(bars[0].node().attribute("style").value(), "width:50%");
  EXPECT_STREQ(bars[1].node().attribute("style").value(), "width:100%");
  const auto link = doc.select_node("//a[@href='/cgi/graphs?id=5']").node();
  ASSERT_TRUE(link);
  EXPECT_EQ(std::string(link.text().get()), graph.name);
  // Columns follow kAllOperandStates: unscheduled, ready, running, finished, freed, fatal, ...
  const auto cells = doc.select_nodes("//tbody/tr[1]/td");
  ASSERT_EQ(cells.size(), 4u + std::size(kAllOperandStates));
  EXPECT_STREQ(cells[4 + 2].node().text().get(), "2");  // running
  EXPECT_STREQ(cells[4 + 3].node().text().get(), "3");  // finished
  EXPECT_STREQ(cells[4 + 5].node().text().get(), "1");  // fatal
  EXPECT_STREQ(cells[4 + 0].node().text().get(), "0");  // unscheduled
}

TEST(WebPages, GraphsList_EmptySaysSo) {
  auto doc = check_page(render_graphs_list_html({}, context()), PageId::Graphs);
  EXPECT_EQ(doc.select_nodes("//p[@class='empty']").size(), 1u);
}

TEST(WebPages, GraphDetail_EmbedsDagAndStagedDataChart) {
  GraphDetail graph;
  graph.id = 9;
  graph.name = "g " + kHostile;
  graph.state = "running";
  graph.operands = {{1, "a", 0, OperandState::Finished, {}}, {2, "b", 1, OperandState::Fatal, {1}}};
  graph.staged_data = {{1'799'990'000, 1 << 20}, {1'799'995'000, 3 << 20}, {1'800'000'000, 2 << 20}};
  auto doc = check_page(render_graph_detail_html(graph, context()), PageId::Graphs);
  EXPECT_EQ(doc.select_nodes("//svg").size(), 2u);
  const auto fatal = doc.select_node("//g[@class='node'][@data-state='fatal']/rect").node();
  ASSERT_TRUE(fatal);
  EXPECT_EQ(std::string(fatal.attribute("fill").value()), operand_state_colour(OperandState::Fatal));
  EXPECT_EQ(doc.select_nodes("//g[@class='series']/polyline").size(), 1u);
}

TEST(WebPages, Recluster_ShowsCurrentKAndRatesAndThreeChartsPerApp) {
  ReclusterApp app;
  app.app_name = "ops " + kHostile;
  app.policy = "DR";
  app.current_k = 6;
  app.series = {{1'799'000'000, 0.01, 0.05, 9}, {1'799'500'000, 0.03, 0.15, 6}};
  for (int k = 1; k <= 20; ++k) app.makespan_curve.push_back({double(k), 100.0 / k + 3.0 * k});
  auto doc = check_page(render_recluster_html({app}, context()), PageId::Reclustering);
  const auto cells = doc.select_nodes("//table/tbody/tr[1]/td");
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(std::string(cells[0].node().text().get()), app.app_name);
  EXPECT_STREQ(cells[1].node().text().get(), "DR");
  EXPECT_STREQ(cells[2].node().text().get(), "6");
  EXPECT_STREQ(cells[3].node().text().get(), "0.0300");
  EXPECT_STREQ(cells[4].node().text().get(), "0.1500");
  EXPECT_EQ(doc.select_nodes("//svg").size(), 3u);
  EXPECT_EQ(doc.select_nodes("//g[@class='series']/polyline").size(), 4u);  // α, β, k, M(k)
}

TEST(WebPages, Volunteers_ShowsTopListsCountsAndPagesEscaped) {
  VolunteerTables tables;
  tables.user_count = 3;
  tables.host_count = 2;
  const UserCreditRow alice{1, "alice " + kHostile, 50, 1, 2};
  const UserCreditRow bob{2, "bob", 300, 0.5, 1};
  const HostCreditRow h10{10, "h10 " + kHostile, "alice", "x86_64-pc-linux-gnu", 20, 2, 1'799'999'000};
  const HostCreditRow h11{11, "h11", "bob", "windows_x86_64", 30, 1, 0};
  tables.top_users_by_total = {bob, alice};
  tables.top_users_by_recent = {alice};
  tables.top_hosts_by_total = {h11, h10};
  tables.top_hosts_by_recent = {h10, h11};
  tables.users = {alice, bob};
  tables.more_users = true;
  tables.hosts = {h10, h11};
  auto doc = check_page(render_volunteers_html(tables, context()), PageId::Volunteers);
  EXPECT_STREQ(doc.select_node("//*[@id='user-count']").node().text().get(), "3");
  EXPECT_STREQ(doc.select_node("//*[@id='host-count']").node().text().get(), "2");
  // Rows in the order given (the database orders them): rank, id, name, total, recent, hosts.
  EXPECT_STREQ(doc.select_node("//table[@id='top-users-total']/tbody/tr[1]/td[3]").node().text().get(),
               "bob");
  EXPECT_STREQ(doc.select_node("//table[@id='top-users-total']/tbody/tr[1]/td[4]").node().text().get(),
               "300.00");
  EXPECT_EQ(doc.select_nodes("//table[@id='top-users-recent']/tbody/tr").size(), 1u);
  EXPECT_STREQ(doc.select_node("//table[@id='top-hosts-recent']/tbody/tr[1]/td[2]").node().text().get(),
               "10");
  // The user table has a next page (after bob, id 2); the host table does not.
  const auto next = doc.select_nodes("//a[text()='Next page']");
  ASSERT_EQ(next.size(), 1u);
  EXPECT_STREQ(next[0].node().attribute("href").value(), "/cgi/volunteers?users_after=2");
  const std::string text = all_text(doc);
  EXPECT_NE(text.find("alice " + kHostile), std::string::npos);
  EXPECT_NE(text.find("h10 " + kHostile), std::string::npos);
  EXPECT_NE(text.find("2027-01-15 07:43:20 UTC"), std::string::npos);  // h10's last contact
}

}  // namespace
}  // namespace tharsis::web_pages_test
