// PrometheusWriter (see prometheus_text.h).
#include "lib/web/prometheus_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace tharsis {

std::string prometheus_escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string prometheus_escape_help(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {
bool is_name_char(char c, bool first, bool allow_colon) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  const bool digit = c >= '0' && c <= '9';
  return letter || (allow_colon && c == ':') || (!first && digit);
}
}  // namespace

bool is_valid_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!is_name_char(name[i], i == 0, true)) return false;
  }
  return true;
}

bool is_valid_label_name(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!is_name_char(name[i], i == 0, false)) return false;
  }
  return true;
}

std::string prometheus_format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, written.ptr);
}

PrometheusWriter& PrometheusWriter::family(std::string_view name, std::string_view help,
                                           std::string_view type) {
  if (!is_valid_metric_name(name)) {
    throw std::invalid_argument("PrometheusWriter: invalid metric name '" + std::string(name) + "'");
  }
  if (type != "gauge" && type != "counter") {
    throw std::invalid_argument("PrometheusWriter: unsupported type '" + std::string(type) + "'");
  }
  if (std::find(families_seen_.begin(), families_seen_.end(), name) != families_seen_.end()) {
    // The format allows each family's HELP/TYPE once and its samples in one group.
    throw std::invalid_argument("PrometheusWriter: family '" + std::string(name) + "' started twice");
  }
  families_seen_.emplace_back(name);
  current_family_ = std::string(name);
  out_ += "# HELP " + current_family_ + " " + prometheus_escape_help(help) + "\n";
  out_ += "# TYPE " + current_family_ + " " + std::string(type) + "\n";
  return *this;
}

PrometheusWriter& PrometheusWriter::sample(std::string_view name, const PrometheusLabels& labels,
                                           double value) {
  if (name != current_family_) {
    throw std::invalid_argument("PrometheusWriter: sample '" + std::string(name) +
                                "' outside its family (current: '" + current_family_ + "')");
  }
  out_ += name;
  if (!labels.empty()) {
    out_ += '{';
    bool first = true;
    for (const auto& [label, label_value] : labels) {
      if (!is_valid_label_name(label)) {
        throw std::invalid_argument("PrometheusWriter: invalid label name '" + label + "'");
      }
      if (!first) out_ += ',';
      first = false;
      out_ += label + "=\"" + prometheus_escape_label_value(label_value) + "\"";
    }
    out_ += '}';
  }
  out_ += ' ' + prometheus_format_value(value) + '\n';
  return *this;
}

}  // namespace tharsis
