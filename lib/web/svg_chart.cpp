// SVG line charts and DAG drawings (see svg_chart.h).
#include "lib/web/svg_chart.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <map>

#include "lib/web/html_escape.h"

namespace tharsis {

namespace {

constexpr const char* kPalette[] = {"#3a86ff", "#d62828", "#2a9d5b", "#f77f00", "#9d4edd", "#6c757d"};

// Coordinates with at most two decimals: compact and exact enough for a screen.
std::string num(double value) {
  const double rounded = std::round(value * 100) / 100;
  char buffer[32];
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, rounded == 0 ? 0.0 : rounded);
  return std::string(buffer, written.ptr);
}

std::string tick_label(double value, AxisFormat format, double span) {
  if (format == AxisFormat::UnixTime) {
    const std::time_t t = static_cast<std::time_t>(value);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, span < 2 * 86400 ? "%H:%M" : "%m-%d", &tm);
    return buffer;
  }
  const double magnitude = std::fabs(value);
  char buffer[32];
  if (magnitude != 0 && (magnitude >= 1e6 || magnitude < 1e-3)) {
    std::snprintf(buffer, sizeof buffer, "%.2g", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%g", std::round(value * 1e6) / 1e6);
  }
  return buffer;
}

std::string colour_or(std::string_view colour, size_t index) {
  if (is_hex_colour(colour)) return std::string(colour);
  return kPalette[index % std::size(kPalette)];
}

std::string svg_open(int width, int height, std::string_view title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + std::to_string(width) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
         std::to_string(height) + "\" role=\"img\" aria-label=\"" + html_attr(title) + "\"><title>" +
         html_escape(title) + "</title>";
}

std::string text_element(double x, double y, std::string_view anchor, std::string_view cls,
                         std::string_view text, std::string_view extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + std::string(anchor) +
         "\" class=\"" + std::string(cls) + "\"" + std::string(extra) + ">" + html_escape(text) + "</text>";
}

// Labels in a node box are cut so they fit; the full label stays in the tooltip.
std::string shorten(std::string_view text, size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  size_t cut = max_chars - 1;
  // Do not split a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "\xE2\x80\xA6";
}

}  // namespace

bool is_hex_colour(std::string_view text) {
  if (text.size() != 4 && text.size() != 7) return false;
  if (text[0] != '#') return false;
  return std::all_of(text.begin() + 1, text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

std::vector<double> nice_ticks(double low, double high, int target) {
  if (!std::isfinite(low) || !std::isfinite(high)) return {};
  if (high < low) std::swap(low, high);
  if (high == low) return {low};
  const double rough = (high - low) / std::max(1, target);
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * power;
    if (step >= rough) break;
  }
  std::vector<double> ticks;
  const double first = std::ceil(low / step - 1e-9) * step;
  for (double tick = first; tick <= high + step * 1e-9 && ticks.size() < 100; tick += step) {
    ticks.push_back(std::fabs(tick) < step * 1e-9 ? 0.0 : tick);
  }
  return ticks;
}

std::string render_line_chart(const LineChart& chart) {
  const double left = 64, right = 16, top = 28, bottom = 64;
  const double width = std::max(chart.width, 200), height = std::max(chart.height, 150);
  const double plot_w = width - left - right, plot_h = height - top - bottom;

  double x_min = INFINITY, x_max = -INFINITY, y_min = INFINITY, y_max = -INFINITY;
  for (const auto& series : chart.series) {
    for (const auto& p : series.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      x_min = std::min(x_min, p.x);
      x_max = std::max(x_max, p.x);
      y_min = std::min(y_min, p.y);
      y_max = std::max(y_max, p.y);
    }
  }
  std::string out = svg_open(static_cast<int>(width), static_cast<int>(height), chart.title);
  out += text_element(width / 2, 18, "middle", "chart-title", chart.title);
  if (!std::isfinite(x_min)) {
    out += text_element(width / 2, height / 2, "middle", "chart-empty", "no data yet");
    return out + "</svg>";
  }
  if (chart.y_from_zero && y_min > 0) y_min = 0;
  // Widen the ranges to whole ticks so lines never touch the frame.
  auto x_ticks = nice_ticks(x_min, x_max);
  auto y_ticks = nice_ticks(y_min, y_max);
  if (x_max == x_min) {
    x_min -= 1;
    x_max += 1;
  }
  if (y_max == y_min) {
    y_min -= 1;
    y_max += 1;
  }
  if (!y_ticks.empty()) {
    y_min = std::min(y_min, y_ticks.front());
    y_max = std::max(y_max, y_ticks.back());
  }
  auto sx = [&](double x) { return left + (x - x_min) / (x_max - x_min) * plot_w; };
  auto sy = [&](double y) { return top + plot_h - (y - y_min) / (y_max - y_min) * plot_h; };

  out += "<g class=\"axes\">";
  out += "<line class=\"axis\" x1=\"" + num(left) + "\" y1=\"" + num(top + plot_h) + "\" x2=\"" +
         num(left + plot_w) + "\" y2=\"" + num(top + plot_h) + "\"/>";
  out += "<line class=\"axis\" x1=\"" + num(left) + "\" y1=\"" + num(top) + "\" x2=\"" + num(left) +
         "\" y2=\"" + num(top + plot_h) + "\"/>";
  for (double tick : x_ticks) {
    if (tick < x_min || tick > x_max) continue;
    const double x = sx(tick);
    out += "<line class=\"tick\" x1=\"" + num(x) + "\" y1=\"" + num(top + plot_h) + "\" x2=\"" + num(x) +
           "\" y2=\"" + num(top + plot_h + 5) + "\"/>";
    out += text_element(x, top + plot_h + 17, "middle", "tick-label",
                        tick_label(tick, chart.x_format, x_max - x_min));
  }
  for (double tick : y_ticks) {
    const double y = sy(tick);
    out += "<line class=\"grid\" x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left + plot_w) +
           "\" y2=\"" + num(y) + "\"/>";
    out += "<line class=\"tick\" x1=\"" + num(left - 5) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left) +
           "\" y2=\"" + num(y) + "\"/>";
    out += text_element(left - 8, y + 4, "end", "tick-label", tick_label(tick, AxisFormat::Number, 0));
  }
  out += text_element(left + plot_w / 2, top + plot_h + 34, "middle", "axis-label", chart.x_label);
  out += text_element(14, top + plot_h / 2, "middle", "axis-label", chart.y_label,
                      " transform=\"rotate(-90 14 " + num(top + plot_h / 2) + ")\"");
  out += "</g>";

  for (size_t i = 0; i < chart.series.size(); ++i) {
    const auto& series = chart.series[i];
    const std::string colour = colour_or(series.colour, i);
    std::string points;
    size_t drawn = 0;
    for (const auto& p : series.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      points += (points.empty() ? "" : " ") + num(sx(p.x)) + "," + num(sy(p.y));
      ++drawn;
    }
    out += "<g class=\"series\" data-series=\"" + html_attr(series.label) + "\">";
    if (drawn > 1) {
      out +=
          "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\" points=\"" + points + "\"/>";
    } else if (drawn == 1) {
      const auto comma = points.find(',');
      out += "<circle r=\"3\" fill=\"" + colour + "\" cx=\"" + points.substr(0, comma) + "\" cy=\"" +
             points.substr(comma + 1) + "\"/>";
    }
    out += "</g>";
  }

  // Legend: one swatch and label per series, along the bottom edge.
  double legend_x = left;
  const double legend_y = height - 12;
  out += "<g class=\"legend\">";
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const std::string colour = colour_or(chart.series[i].colour, i);
    out += "<rect x=\"" + num(legend_x) + "\" y=\"" + num(legend_y - 9) +
           "\" width=\"12\" height=\"10\" fill=\"" + colour + "\"/>";
    out += text_element(legend_x + 16, legend_y, "start", "legend-label", chart.series[i].label);
    legend_x += 28 + 7.0 * static_cast<double>(std::min<size_t>(chart.series[i].label.size(), 30));
  }
  out += "</g></svg>";
  return out;
}

std::string render_dag(const DagDrawing& dag) {
  constexpr double kColumn = 140, kRow = 36, kBoxW = 108, kBoxH = 24, kMargin = 16, kLegendH = 30;
  // Place nodes: column by depth, row by order of appearance within the depth.
  std::map<int, int> rows_per_depth;
  std::map<int64_t, std::pair<double, double>> position;  // id -> box top-left
  int max_depth = 0, max_rows = 0;
  for (const auto& node : dag.nodes) {
    const int depth = std::max(0, node.depth);
    const int row = rows_per_depth[depth]++;
    max_depth = std::max(max_depth, depth);
    max_rows = std::max(max_rows, row + 1);
    position.emplace(node.id, std::make_pair(kMargin + depth * kColumn, kMargin + row * kRow));
  }
  double legend_width = 2 * kMargin;
  for (const auto& entry : dag.legend) legend_width += 28 + 7.0 * static_cast<double>(entry.first.size());
  const double width = std::max({2 * kMargin + max_depth * kColumn + kBoxW, 320.0, legend_width});
  const double height = 2 * kMargin + std::max(1, max_rows) * kRow + kLegendH;
  std::string out = svg_open(static_cast<int>(width), static_cast<int>(height), dag.title);
  if (dag.nodes.empty()) {
    out += text_element(width / 2, kMargin + kRow / 2, "middle", "chart-empty", "no operands");
  }

  out += "<g class=\"edges\">";
  for (const auto& node : dag.nodes) {
    const auto to = position.at(node.id);
    for (int64_t pred : node.preds) {
      auto from = position.find(pred);
      if (from == position.end()) continue;
      out += "<line class=\"edge\" x1=\"" + num(from->second.first + kBoxW) + "\" y1=\"" +
             num(from->second.second + kBoxH / 2) + "\" x2=\"" + num(to.first) + "\" y2=\"" +
             num(to.second + kBoxH / 2) + "\"/>";
    }
  }
  out += "</g><g class=\"nodes\">";
  for (const auto& node : dag.nodes) {
    const auto [x, y] = position.at(node.id);
    const std::string fill = is_hex_colour(node.colour) ? node.colour : "#cccccc";
    out += "<g class=\"node\" data-id=\"" + std::to_string(node.id) + "\" data-state=\"" +
           html_attr(node.state) + "\"><title>" +
           html_escape("#" + std::to_string(node.id) + " " + node.label + " (" + node.state + ")") +
           "</title><rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(kBoxW) + "\" height=\"" +
           num(kBoxH) + "\" rx=\"4\" fill=\"" + fill + "\"/>";
    out += text_element(x + kBoxW / 2, y + 16, "middle", "node-label", shorten(node.label, 15));
    out += "</g>";
  }
  out += "</g><g class=\"legend\">";
  double legend_x = kMargin;
  const double legend_y = height - 10;
  for (const auto& [state, colour] : dag.legend) {
    out += "<rect x=\"" + num(legend_x) + "\" y=\"" + num(legend_y - 9) +
           "\" width=\"12\" height=\"10\" fill=\"" +
           (is_hex_colour(colour) ? colour : std::string("#cccccc")) + "\"/>";
    out += text_element(legend_x + 16, legend_y, "start", "legend-label", state);
    legend_x += 28 + 7.0 * static_cast<double>(state.size());
  }
  out += "</g></svg>";
  return out;
}

}  // namespace tharsis
