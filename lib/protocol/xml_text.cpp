// Implementation of lib/protocol/xml_text.h.
#include "lib/protocol/xml_text.h"

#include <charconv>
#include <cmath>

#include "lib/protocol/utf8.h"

namespace tharsis {

std::string escape_markup(std::string_view text, const MarkupEscape& rules) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += rules.apostrophe;
        break;
      case '\t':
      case '\n':
      case '\r':
        out += c;
        break;
      default: {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || (byte == 0x7f && rules.del_is_control)) {
          out += rules.control;
        } else {
          out += c;
        }
      }
    }
  }
  return out;
}

std::string xml_escape(std::string_view text) {
  return escape_markup(text, {.apostrophe = "&apos;", .control = "" /* not XML 1.0: dropped */});
}

void append_element(std::string& out, std::string_view tag, std::string_view text) {
  out += '<';
  out += tag;
  out += '>';
  out += text;
  out += "</";
  out += tag;
  out += ">\n";
}

std::string format_double(double value) {
  if (!std::isfinite(value)) return "0";
  char buffer[400];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed);
  if (ec != std::errc()) return "0";
  return std::string(buffer, end);
}

std::string format_int(int64_t value) { return std::to_string(value); }

std::string_view trim_xml_space(std::string_view text) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<double> parse_xml_double(std::string_view text) {
  text = trim_xml_space(text);
  if (text.empty()) return std::nullopt;
  std::string_view digits = text;
  if (digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) return std::nullopt;
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  if (!std::isfinite(value)) return 0.0;
  return value;
}

std::optional<int64_t> parse_xml_int(std::string_view text) {
  text = trim_xml_space(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<bool> parse_xml_bool(std::string_view text) {
  text = trim_xml_space(text);
  if (text.empty()) return true;
  auto number = parse_xml_int(text);
  if (!number) return std::nullopt;
  return *number != 0;
}

int line_at(std::string_view text, std::ptrdiff_t offset) {
  if (offset < 0) offset = 0;
  auto end = std::min(static_cast<size_t>(offset), text.size());
  int line = 1;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

std::string quote_for_message(std::string_view text) {
  // Valid UTF-8 and cut at a character boundary: the message goes into a reply and a log.
  std::string valid = valid_utf8_or_replaced(text.substr(0, 160));
  std::string_view shown = utf8_prefix_bytes(valid, 40);
  std::string out = "'";
  for (char c : shown) {
    auto byte = static_cast<unsigned char>(c);
    out += (byte < 0x20 || byte == 0x7f) ? '?' : c;
  }
  if (text.size() > shown.size() && valid.size() > shown.size()) out += "...";
  out += "'";
  return out;
}

}  // namespace tharsis
