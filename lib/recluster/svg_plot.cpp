// SVG line plots; see svg_plot.h.
#include "lib/recluster/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "lib/protocol/xml_text.h"

namespace tharsis {

namespace {

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

struct Axis {
  bool log = false;
  double lo = 0.0, hi = 1.0;  // in plotted units (log10 if log)

  bool usable(double v) const { return std::isfinite(v) && (!log || v > 0.0); }
  double map(double v) const { return log ? std::log10(v) : v; }
};

// Tick values (in data units) for an axis: 1-2-5 steps on linear axes, 1-2-5 per decade
// on log axes, thinned to at most ~8.
std::vector<double> ticks(const Axis& axis) {
  std::vector<double> out;
  if (axis.log) {
    auto collect = [&](std::initializer_list<double> mantissas) {
      out.clear();
      for (int e = static_cast<int>(std::floor(axis.lo)); e <= static_cast<int>(std::ceil(axis.hi)); ++e) {
        for (double m : mantissas) {
          const double v = m * std::pow(10.0, e);
          if (std::log10(v) >= axis.lo - 1e-9 && std::log10(v) <= axis.hi + 1e-9) out.push_back(v);
        }
      }
    };
    collect({1.0, 2.0, 5.0});
    if (out.size() < 3) collect({1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0});  // under a decade
    if (out.size() > 8) {
      std::vector<double> decades;
      for (double v : out) {
        if (std::fabs(std::log10(v) - std::round(std::log10(v))) < 1e-9) decades.push_back(v);
      }
      out = decades;
    }
    return out;
  }
  const double span = axis.hi - axis.lo;
  const double raw = span / 6.0;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  for (double v = std::ceil(axis.lo / step) * step; v <= axis.hi + step * 1e-9; v += step) {
    out.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  return out;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string render_svg(const Plot& plot) {
  const double left = 80, right = 190, top = 40, bottom = 60;
  const double w = plot.width, h = plot.height;
  const double pw = w - left - right, ph = h - top - bottom;

  Axis ax{plot.log_x}, ay{plot.log_y};
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo;
  double y_lo = x_lo, y_hi = -x_lo;
  for (const auto& s : plot.series) {
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!ax.usable(s.x[i]) || !ay.usable(s.y[i])) continue;
      x_lo = std::min(x_lo, ax.map(s.x[i]));
      x_hi = std::max(x_hi, ax.map(s.x[i]));
      y_lo = std::min(y_lo, ay.map(s.y[i]));
      y_hi = std::max(y_hi, ay.map(s.y[i]));
    }
  }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  if (x_hi - x_lo < 1e-12) x_lo -= 0.5, x_hi += 0.5;
  if (y_hi - y_lo < 1e-12) y_lo -= 0.5, y_hi += 0.5;
  if (!ay.log && y_lo > 0 && y_lo < 0.5 * y_hi) y_lo = 0;  // start linear y at 0 when near
  const double y_pad = ay.log ? 0.05 * (y_hi - y_lo) : 0.04 * (y_hi - y_lo);
  ax.lo = x_lo, ax.hi = x_hi, ay.lo = ay.log ? y_lo - y_pad : y_lo, ay.hi = y_hi + y_pad;

  auto px = [&](double v) { return left + (ax.map(v) - ax.lo) / (ax.hi - ax.lo) * pw; };
  auto py = [&](double v) { return top + ph - (ay.map(v) - ay.lo) / (ay.hi - ay.lo) * ph; };

  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
      << "\" viewBox=\"0 0 " << w << ' ' << h << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << left + pw / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">"
      << xml_escape(plot.title) << "</text>\n";

  // Grid and tick labels.
  for (double v : ticks(ax)) {
    const double x = px(v);
    out << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << top + ph
        << "\" stroke=\"#e0e0e0\"/>\n<text x=\"" << x << "\" y=\"" << top + ph + 16
        << "\" text-anchor=\"middle\">" << xml_escape(format_number(v)) << "</text>\n";
  }
  for (double v : ticks(ay)) {
    const double y = py(v);
    out << "<line x1=\"" << left << "\" y1=\"" << y << "\" x2=\"" << left + pw << "\" y2=\"" << y
        << "\" stroke=\"#e0e0e0\"/>\n<text x=\"" << left - 6 << "\" y=\"" << y + 4
        << "\" text-anchor=\"end\">" << xml_escape(format_number(v)) << "</text>\n";
  }
  out << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
      << "\" fill=\"none\" stroke=\"black\"/>\n"
      << "<text x=\"" << left + pw / 2 << "\" y=\"" << h - 18 << "\" text-anchor=\"middle\">"
      << xml_escape(plot.x_label + (plot.log_x ? " (log)" : "")) << "</text>\n"
      << "<text transform=\"translate(18," << top + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
      << xml_escape(plot.y_label + (plot.log_y ? " (log)" : "")) << "</text>\n";

  // Series and legend.
  for (size_t s = 0; s < plot.series.size(); ++s) {
    const auto& series = plot.series[s];
    const size_t palette = sizeof kColors / sizeof kColors[0];
    const char* color = kColors[(series.color >= 0 ? static_cast<size_t>(series.color) : s) % palette];
    std::ostringstream points;
    std::vector<std::pair<double, double>> dots;
    for (size_t i = 0; i < series.x.size() && i < series.y.size(); ++i) {
      if (!ax.usable(series.x[i]) || !ay.usable(series.y[i])) continue;
      points << px(series.x[i]) << ',' << py(series.y[i]) << ' ';
      dots.emplace_back(px(series.x[i]), py(series.y[i]));
    }
    out << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.8\""
        << (series.dashed ? " stroke-dasharray=\"6,4\"" : "") << " points=\"" << points.str() << "\"/>\n";
    if (series.markers) {
      for (const auto& [x, y] : dots) {
        out << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"2.5\" fill=\"" << color << "\"/>\n";
      }
    }
    const double ly = top + 12 + 18.0 * static_cast<double>(s);
    const double lx = left + pw + 12;
    out << "<line x1=\"" << lx << "\" y1=\"" << ly << "\" x2=\"" << lx + 24 << "\" y2=\"" << ly
        << "\" stroke=\"" << color << "\" stroke-width=\"2\""
        << (series.dashed ? " stroke-dasharray=\"6,4\"" : "") << "/>\n<text x=\"" << lx + 30 << "\" y=\""
        << ly + 4 << "\">" << xml_escape(series.name) << "</text>\n";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace tharsis
