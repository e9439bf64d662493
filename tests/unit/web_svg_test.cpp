// SVG line charts and DAG drawings (lib/web/svg_chart.h, lib/web/graphs_render.h): output
// parses as XML, labels are escaped, nodes are placed by depth and filled by state colour.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <pugixml.hpp>
#include <string>

#include "db/state_names.h"
#include "lib/web/graphs_render.h"
#include "lib/web/state_colours.h"
#include "lib/web/svg_chart.h"

namespace tharsis::web_svg_test {
namespace {

const std::string kHostile = "<script>alert(\"x\")</script> & 'q'";

pugi::xml_document parse_svg(const std::string& svg) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_string(svg.c_str());
  EXPECT_TRUE(parsed) << parsed.description() << " at " << parsed.offset << " in\n" << svg;
  EXPECT_STREQ(doc.document_element().name(), "svg");
  return doc;
}

TEST(WebSvg, NiceTicks_UseSteps1_2_5AndCoverTheRange) {
  EXPECT_EQ(nice_ticks(0, 10, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  const auto unit = nice_ticks(0, 1, 5);
  ASSERT_EQ(unit.size(), 6u);
  for (size_t i = 0; i < unit.size(); ++i) EXPECT_NEAR(unit[i], 0.2 * static_cast<double>(i), 1e-12);
  const auto ticks = nice_ticks(3, 97, 5);
  ASSERT_FALSE(ticks.empty());
  EXPECT_GE(ticks.front(), 3);
  EXPECT_LE(ticks.back(), 97);
  EXPECT_DOUBLE_EQ(ticks[1] - ticks[0], 20);
  EXPECT_EQ(nice_ticks(4, 4), std::vector<double>{4});
  EXPECT_TRUE(nice_ticks(NAN, 1).empty());
}

TEST(WebSvg, LineChart_IsWellFormedWithAxesTicksAndLegend) {
  LineChart chart;
  chart.title = "Rates " + kHostile;
  chart.x_label = "x " + kHostile;
  chart.y_label = "y";
  chart.series.push_back({"alpha " + kHostile, "#d62828", {{0, 0.1}, {1, 0.2}, {2, NAN}, {3, 0.15}}});
  chart.series.push_back({"beta", "red\" onload=\"evil()", {{0, 0.3}, {3, 0.4}}});
  const std::string svg = render_line_chart(chart);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("onload"), std::string::npos);  // bad colour replaced, never printed
  auto doc = parse_svg(svg);
  EXPECT_EQ(std::string(doc.child("svg").child("title").text().get()), chart.title);
  EXPECT_GE(doc.select_nodes("//line[@class='axis']").size(), 2u);
  EXPECT_GE(doc.select_nodes("//line[@class='tick']").size(), 4u);
  const auto series = doc.select_nodes("//g[@class='series']");
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(std::string(series[0].node().attribute("data-series").value()), "alpha " + kHostile);
  // The NaN point is skipped: three points remain in the first polyline.
  const std::string points = series[0].node().child("polyline").attribute("points").value();
  EXPECT_EQ(std::count(points.begin(), points.end(), ','), 3);
  EXPECT_STREQ(series[0].node().child("polyline").attribute("stroke").value(), "#d62828");
  const auto legend = doc.select_nodes("//g[@class='legend']/text");
  ASSERT_EQ(legend.size(), 2u);
  EXPECT_EQ(std::string(legend[0].node().text().get()), "alpha " + kHostile);
}

TEST(WebSvg, LineChart_WithoutDataSaysSo) {
  LineChart chart;
  chart.title = "empty";
  chart.series.push_back({"s", "#000", {}});
  auto doc = parse_svg(render_line_chart(chart));
  EXPECT_EQ(doc.select_nodes("//text[@class='chart-empty']").size(), 1u);
}

GraphDetail diamond_graph() {
  // 1 -> 2, 1 -> 3, {2,3} -> 4
  GraphDetail graph;
  graph.id = 7;
  graph.name = "diamond " + kHostile;
  graph.state = "running";
  graph.operands = {{1, "fill " + kHostile, 0, OperandState::Freed, {}},
                    {2, "add", 1, OperandState::Finished, {1}},
                    {3, "mul", 1, OperandState::Running, {1}},
                    {4, "sum", 2, OperandState::Unscheduled, {2, 3, 99}}};
  return graph;
}

TEST(WebSvg, Dag_NodesFilledByStateColourWithLegendOfStatesPresent) {
  const GraphDetail graph = diamond_graph();
  const std::string svg = render_graph_dag_svg(graph);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  auto doc = parse_svg(svg);
  const auto nodes = doc.select_nodes("//g[@class='node']");
  ASSERT_EQ(nodes.size(), 4u);
  for (const auto& selected : nodes) {
    const pugi::xml_node node = selected.node();
    const int64_t id = node.attribute("data-id").as_llong();
    const OperandNode& operand = graph.operands[static_cast<size_t>(id - 1)];
    EXPECT_EQ(std::string(node.attribute("data-state").value()), operand_state_name(operand.state));
    EXPECT_EQ(std::string(node.child("rect").attribute("fill").value()), operand_state_colour(operand.state));
  }
  // The hostile label survives as text in the tooltip.
  EXPECT_NE(std::string(nodes[0].node().child("title").text().get()).find(kHostile), std::string::npos);
  const auto legend = doc.select_nodes("//g[@class='legend']/text");
  ASSERT_EQ(legend.size(), 4u);  // freed, finished, running, unscheduled; not the absent states
  const auto swatches = doc.select_nodes("//g[@class='legend']/rect");
  std::map<std::string, std::string> legend_colour;
  for (size_t i = 0; i < legend.size(); ++i) {
    legend_colour[legend[i].node().text().get()] = swatches[i].node().attribute("fill").value();
  }
  EXPECT_EQ(legend_colour["running"], operand_state_colour(OperandState::Running));
  EXPECT_EQ(legend_colour.count("fatal"), 0u);
}

TEST(WebSvg, Dag_PlacesColumnsByDepthAndDrawsOneEdgePerKnownPredecessor) {
  auto doc = parse_svg(render_graph_dag_svg(diamond_graph()));
  std::map<int64_t, double> x_of;
  for (const auto& selected : doc.select_nodes("//g[@class='node']")) {
    x_of[selected.node().attribute("data-id").as_llong()] =
        selected.node().child("rect").attribute("x").as_double();
  }
  EXPECT_LT(x_of[1], x_of[2]);
  EXPECT_DOUBLE_EQ(x_of[2], x_of[3]);  // same depth, same column
  EXPECT_LT(x_of[3], x_of[4]);
  // Edges 1->2, 1->3, 2->4, 3->4; the unknown predecessor 99 is ignored.
  const auto edges = doc.select_nodes("//line[@class='edge']");
  ASSERT_EQ(edges.size(), 4u);
  for (const auto& edge : edges) {
    EXPECT_LT(edge.node().attribute("x1").as_double(), edge.node().attribute("x2").as_double());
  }
}

TEST(WebSvg, Dag_RejectsNonHexColours) {
  DagDrawing dag;
  dag.title = "t";
  dag.nodes.push_back({1, "a", 0, "x", "url(javascript:alert(1))", {}});
  dag.legend.push_back({"x", "expression(evil)"});
  const std::string svg = render_dag(dag);
  EXPECT_EQ(svg.find("javascript"), std::string::npos);
  EXPECT_EQ(svg.find("expression"), std::string::npos);
  parse_svg(svg);
  EXPECT_TRUE(is_hex_colour("#abc"));
  EXPECT_TRUE(is_hex_colour("#A0b1C2"));
  EXPECT_FALSE(is_hex_colour("#abcd"));
  EXPECT_FALSE(is_hex_colour("red"));
}

}  // namespace
}  // namespace tharsis::web_svg_test
