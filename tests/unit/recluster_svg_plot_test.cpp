// SVG line plots of ftsim: text is escaped, one polyline and one legend entry per series,
// points a log axis cannot show are skipped.
#include <gtest/gtest.h>

#include <string>

#include "lib/recluster/svg_plot.h"

namespace tharsis {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReclusterSvgPlot, DrawsOnePolylineAndLegendEntryPerSeriesWithEscapedText) {
  Plot plot;
  plot.title = "M(k) <TFM> & JFM";
  plot.x_label = "k";
  plot.y_label = "makespan";
  plot.series.push_back({"alpha<0.01", {1, 2, 3}, {10, 5, 7}, true, false, -1});
  plot.series.push_back({"sim", {1, 2, 3}, {11, 6, 8}, false, true, -1});
  const std::string svg = render_svg(plot);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("M(k) &lt;TFM&gt; &amp; JFM"), std::string::npos);
  EXPECT_EQ(svg.find("<TFM>"), std::string::npos);
  EXPECT_NE(svg.find(">alpha&lt;0.01<"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "<circle"), 3u);           // markers only on the second series
  EXPECT_EQ(count(svg, "stroke-dasharray"), 2u);  // dashed line and its legend sample
}

TEST(ReclusterSvgPlot, LogAxisSkipsNonPositivePoints) {
  Plot plot;
  plot.log_y = true;
  plot.series.push_back({"s", {1, 2, 3, 4}, {0.0, 100.0, -1.0, 1000.0}, false, true, -1});
  const std::string svg = render_svg(plot);
  EXPECT_EQ(count(svg, "<circle"), 2u);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

}  // namespace
}  // namespace tharsis
