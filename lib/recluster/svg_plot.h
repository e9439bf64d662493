// A small SVG line-plot writer for the reclustering study (ftsim): axes with ticks, one
// polyline per series, a legend; linear or log10 axes. Text is XML-escaped. No
// dependencies; the output opens in any browser.
#pragma once

#include <string>
#include <vector>

namespace tharsis {

struct PlotSeries {
  std::string name;
  std::vector<double> x, y;  // same length; non-finite or (log axis) non-positive points are skipped
  bool dashed = false;       // e.g. model curves dashed, simulated means solid
  bool markers = false;      // a dot at each point
  int color = -1;            // palette index; -1 = the series' position
};

struct Plot {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  int width = 720, height = 460;
  std::vector<PlotSeries> series;
};

// Renders the plot as a complete SVG document.
std::string render_svg(const Plot& plot);

}  // namespace tharsis
