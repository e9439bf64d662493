// Graph list and graph detail pages (see graphs_render.h).
#include "lib/web/graphs_render.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "db/state_names.h"
#include "lib/web/html_escape.h"
#include "lib/web/state_colours.h"
#include "lib/web/svg_chart.h"

namespace tharsis {

namespace {

std::string percent_text(double fraction) {
  const double clamped = std::isfinite(fraction) ? std::clamp(fraction, 0.0, 1.0) : 0.0;
  return std::to_string(static_cast<int>(std::floor(clamped * 100 + 1e-9))) + "%";
}

}  // namespace

std::string render_graphs_list_html(const std::vector<GraphSummary>& graphs, const PageContext& context,
                                    int64_t total) {
  std::string body;
  if (total > static_cast<int64_t>(graphs.size())) {
    body += "<p class=\"muted\">" + std::to_string(total) + " graphs; the newest " +
            std::to_string(graphs.size()) + " are shown.</p>\n";
  }
  if (graphs.empty()) {
    body += "<p class=\"empty\">No operand graphs have been submitted.</p>\n";
    return render_page(context, PageId::Graphs, "Graphs", body);
  }
  body += "<table>\n<thead><tr><th class=\"num\">ID</th><th>Name</th><th>State</th><th>Progress</th>";
  for (OperandState state : kAllOperandStates) {
    body += "<th class=\"num\"><span class=\"swatch\" style=\"background:" +
            std::string(operand_state_colour(state)) + "\"></span>" + html_escape(operand_state_name(state)) +
            "</th>";
  }
  body += "</tr></thead>\n<tbody>\n";
  const std::string link = context.base_url + std::string(page_program(PageId::Graphs)) + "?id=";
  for (const auto& graph : graphs) {
    const std::string percent = percent_text(graph.progress);
    body += "<tr data-graph=\"" + std::to_string(graph.id) + "\"><td class=\"num\">" +
            std::to_string(graph.id) + "</td><td><a href=\"" + html_attr(link + std::to_string(graph.id)) +
            "\">" + html_escape(graph.name) + "</a></td><td>" + html_escape(graph.state) +
            "</td><td><div class=\"progress\" role=\"progressbar\" "
            "aria-valuemin=\"0\" aria-valuemax=\"100\" aria-valuenow=\"" +
            percent.substr(0, percent.size() - 1) + "\"><div class=\"bar\" style=\"width:" + percent +
            "\"></div></div><span class=\"pct\">" + percent + "</span></td>";
    for (OperandState state : kAllOperandStates) {
      auto it = graph.operands_by_state.find(state);
      body += "<td class=\"num\">" + std::to_string(it == graph.operands_by_state.end() ? 0 : it->second) +
              "</td>";
    }
    body += "</tr>\n";
  }
  body += "</tbody>\n</table>\n";
  return render_page(context, PageId::Graphs, "Graphs", body);
}

std::string render_graph_dag_svg(const GraphDetail& graph) {
  DagDrawing dag;
  dag.title = "Operand graph " + graph.name;
  std::set<OperandState> present;
  for (const auto& operand : graph.operands) {
    DagNode node;
    node.id = operand.id;
    node.label = operand.label;
    node.depth = operand.depth;
    node.state = std::string(operand_state_name(operand.state));
    node.colour = std::string(operand_state_colour(operand.state));
    node.preds = operand.preds;
    dag.nodes.push_back(std::move(node));
    present.insert(operand.state);
  }
  for (OperandState state : kAllOperandStates) {
    if (present.count(state) != 0) {
      dag.legend.emplace_back(operand_state_name(state), operand_state_colour(state));
    }
  }
  return render_dag(dag);
}

std::string render_graph_detail_html(const GraphDetail& graph, const PageContext& context) {
  std::string body = "<p><a href=\"" +
                     html_attr(context.base_url + std::string(page_program(PageId::Graphs))) +
                     "\">All graphs</a></p>\n";
  std::map<OperandState, int64_t> counts;
  for (const auto& operand : graph.operands) ++counts[operand.state];
  body += "<dl class=\"facts\"><dt>ID</dt><dd>" + std::to_string(graph.id) + "</dd><dt>State</dt><dd>" +
          html_escape(graph.state) + "</dd><dt>Operands</dt><dd id=\"operand-counts\">" +
          std::to_string(graph.operands.size());
  for (const auto& [state, count] : counts) {
    body += " \xC2\xB7 <span data-state=\"" + std::string(operand_state_name(state)) + "\">" +
            std::to_string(count) + "</span> " + html_escape(operand_state_name(state));
  }
  body += "</dd><dt>Staged now</dt><dd id=\"staged-bytes\">" + std::to_string(graph.staged_bytes_now) +
          " bytes</dd></dl>\n";
  if (graph.operands.size() <= kMaxDrawnOperands) {
    body += "<section>\n<h2>Operands</h2>\n<div class=\"figure\">" + render_graph_dag_svg(graph) +
            "</div>\n</section>\n";
  } else {
    body += "<section>\n<h2>Operands</h2>\n<p class=\"muted\">" + std::to_string(graph.operands.size()) +
            " operands: too many to draw (at most " + std::to_string(kMaxDrawnOperands) +
            ").</p>\n</section>\n";
  }

  LineChart chart;
  chart.title = "Staged data on the server";
  chart.x_label = "time (UTC)";
  chart.y_label = "MiB";
  chart.x_format = AxisFormat::UnixTime;
  ChartSeries staged{"staged output", "#3a86ff", {}};
  for (const auto& point : graph.staged_data) {
    staged.points.push_back(
        {static_cast<double>(point.time), static_cast<double>(point.bytes) / (1024.0 * 1024.0)});
  }
  chart.series.push_back(std::move(staged));
  body += "<section>\n<h2>Staged data</h2>\n<div class=\"figure\">" + render_line_chart(chart) +
          "</div>\n</section>\n";
  return render_page(context, PageId::Graphs, "Graph " + graph.name, body);
}

}  // namespace tharsis
