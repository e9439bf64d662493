// PrometheusWriter: the Prometheus text exposition format (version 0.0.4) for the server
// status page's format=prometheus, so a Prometheus server can scrape a project. Each
// metric family gets its # HELP and # TYPE lines once, before its samples; label values
// and help text are escaped as the format requires (\\, \" and \n in label values; \\ and
// \n in help). Metric and label names are checked: a bad one is a programming error and
// throws invalid_argument.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tharsis {

using PrometheusLabels = std::vector<std::pair<std::string, std::string>>;

// Label-value escaping: backslash, double quote and line feed.
std::string prometheus_escape_label_value(std::string_view value);
// HELP-text escaping: backslash and line feed.
std::string prometheus_escape_help(std::string_view text);
// [a-zA-Z_:][a-zA-Z0-9_:]* for metric names; labels additionally exclude ':' and the
// reserved "__" prefix.
bool is_valid_metric_name(std::string_view name);
bool is_valid_label_name(std::string_view name);
// The sample value: shortest round-trip decimal; NaN, +Inf, -Inf as the format spells them.
std::string prometheus_format_value(double value);

class PrometheusWriter {
 public:
  // Starts a family: "gauge" or "counter" (the only types the status page uses).
  PrometheusWriter& family(std::string_view name, std::string_view help, std::string_view type);
  // One sample of the current family; `name` must be the family's name.
  PrometheusWriter& sample(std::string_view name, const PrometheusLabels& labels, double value);
  const std::string& str() const { return out_; }

 private:
  std::string out_;
  std::string current_family_;
  std::vector<std::string> families_seen_;
};

}  // namespace tharsis
