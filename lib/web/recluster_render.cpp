// Reclustering page (see recluster_render.h).
#include "lib/web/recluster_render.h"

#include <cstdio>

#include "lib/web/html_escape.h"
#include "lib/web/svg_chart.h"

namespace tharsis {

namespace {

std::string fixed(double value, int decimals) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace

std::string render_recluster_html(const std::vector<ReclusterApp>& apps, const PageContext& context) {
  std::string body;
  if (apps.empty()) {
    body += "<p class=\"empty\">No app has reclustering data yet.</p>\n";
    return render_page(context, PageId::Reclustering, "Reclustering", body);
  }
  body +=
      "<table>\n<thead><tr><th>App</th><th>Policy</th><th class=\"num\">Current k</th>"
      "<th class=\"num\">\xCE\xB1 (task)</th><th class=\"num\">\xCE\xB2 (job)</th></tr></thead>\n<tbody>\n";
  for (const auto& app : apps) {
    const bool has = !app.series.empty();
    body += "<tr data-app=\"" + html_attr(app.app_name) + "\"><td>" + html_escape(app.app_name) +
            "</td><td>" + html_escape(app.policy) + "</td><td class=\"num\">" +
            std::to_string(app.current_k) + "</td><td class=\"num\">" +
            (has ? fixed(app.series.back().alpha, 4) : "-") + "</td><td class=\"num\">" +
            (has ? fixed(app.series.back().beta, 4) : "-") + "</td></tr>\n";
  }
  body += "</tbody>\n</table>\n";

  for (const auto& app : apps) {
    body += "<section>\n<h2>" + html_escape(app.app_name) + " <span class=\"muted\">(" +
            html_escape(app.policy) + ", k = " + std::to_string(app.current_k) + ")</span></h2>\n";
    LineChart rates;
    rates.title = "Failure rates of " + app.app_name;
    rates.x_label = "time (UTC)";
    rates.y_label = "rate";
    rates.x_format = AxisFormat::UnixTime;
    ChartSeries alpha{"\xCE\xB1 task failure rate", "#d62828", {}};
    ChartSeries beta{"\xCE\xB2 job failure rate", "#3a86ff", {}};
    ChartSeries k_series{"cluster size k", "#2a9d5b", {}};
    for (const auto& sample : app.series) {
      const double t = static_cast<double>(sample.time);
      alpha.points.push_back({t, sample.alpha});
      beta.points.push_back({t, sample.beta});
      k_series.points.push_back({t, static_cast<double>(sample.k)});
    }
    rates.series = {std::move(alpha), std::move(beta)};
    LineChart k_chart;
    k_chart.title = "Cluster size of " + app.app_name;
    k_chart.x_label = "time (UTC)";
    k_chart.y_label = "k";
    k_chart.x_format = AxisFormat::UnixTime;
    k_chart.series = {std::move(k_series)};
    LineChart makespan;
    makespan.title = "Model makespan M(k) of " + app.app_name;
    makespan.x_label = "cluster size k";
    makespan.y_label = "M(k), s";
    makespan.y_from_zero = false;
    ChartSeries curve{"M(k)", "#9d4edd", {}};
    for (const auto& point : app.makespan_curve) curve.points.push_back({point.k, point.makespan});
    makespan.series = {std::move(curve)};
    body += "<p class=\"muted\" data-app=\"" + html_attr(app.app_name) + "\">M(k) under " +
            html_escape(app.model) + " for n = " + std::to_string(app.tasks_left) +
            " tasks, r = " + std::to_string(app.hosts) + " hosts, t = " + fixed(app.task_time, 1) +
            " s, D = " + fixed(app.job_overhead, 1) + " s.</p>\n";
    body += "<div class=\"figures\"><div class=\"figure\">" + render_line_chart(rates) +
            "</div><div class=\"figure\">" + render_line_chart(k_chart) + "</div><div class=\"figure\">" +
            render_line_chart(makespan) + "</div></div>\n</section>\n";
  }
  return render_page(context, PageId::Reclustering, "Reclustering", body);
}

}  // namespace tharsis
