// Inline SVG drawings for the status pages, written as well-formed XML (they parse as
// standalone documents) with every label escaped:
//  - a line chart with axes, "nice" tick marks and labels, axis titles and a legend;
//  - a small DAG: nodes placed in columns by depth (predecessors to the left), edges as
//    lines from predecessor to successor, node fill by a state colour, with a legend.
// No scripts, no external references: the pages work without JavaScript.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tharsis {

struct ChartPoint {
  double x = 0;
  double y = 0;
};

struct ChartSeries {
  std::string label;
  std::string colour;              // "#rrggbb" or "#rgb"; anything else falls back to a default palette
  std::vector<ChartPoint> points;  // drawn in order; non-finite points are skipped
};

enum class AxisFormat { Number, UnixTime };

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  AxisFormat x_format = AxisFormat::Number;
  bool y_from_zero = true;  // start the y axis at 0 when all values are positive
  int width = 640;
  int height = 300;
  std::vector<ChartSeries> series;
};

// "Nice" tick positions (steps of 1, 2 or 5 times a power of ten) covering [low, high],
// about `target` of them. low == high gives one tick.
std::vector<double> nice_ticks(double low, double high, int target = 5);

std::string render_line_chart(const LineChart& chart);

struct DagNode {
  int64_t id = 0;
  std::string label;
  int depth = 0;
  std::string state;           // shown in the tooltip and as data-state
  std::string colour;          // fill, "#rrggbb"/"#rgb" (else grey)
  std::vector<int64_t> preds;  // ids of predecessors; ids not among the nodes are ignored
};

struct DagDrawing {
  std::string title;
  std::vector<DagNode> nodes;
  std::vector<std::pair<std::string, std::string>> legend;  // (state, colour)
};

std::string render_dag(const DagDrawing& dag);

// True for "#rgb" and "#rrggbb".
bool is_hex_colour(std::string_view text);

}  // namespace tharsis
