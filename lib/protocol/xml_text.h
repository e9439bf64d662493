// XML text helpers shared by the wire-protocol readers and writers: escaping for element
// text and attributes, locale-independent number formatting and parsing, and the line
// number of a byte offset (for error messages that say where).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tharsis {

// The one markup escape, for XML and the HTML pages (lib/web/html_escape.h): & < > " as
// named entities, ' as `apostrophe`, and each control character other than tab, newline
// and carriage return (and DEL when `del_is_control`) replaced by `control` ("" drops it).
struct MarkupEscape {
  std::string_view apostrophe;
  std::string_view control;
  bool del_is_control = false;
};
std::string escape_markup(std::string_view text, const MarkupEscape& rules);

// Escapes & < > " ' as named entities (the five the BOINC client's xml_unescape knows).
// Control characters other than tab, newline and carriage return cannot appear in XML 1.0
// and are dropped.
std::string xml_escape(std::string_view text);

// Appends "<tag>text</tag>\n" to `out`; `text` as given, so already escaped (or a number).
void append_element(std::string& out, std::string_view tag, std::string_view text);

// Shortest fixed-point text that reads back to the same double ("0.5", "1000000",
// "1e-7" -> "0.0000001"); never exponent notation, never locale-dependent.
std::string format_double(double value);
std::string format_int(int64_t value);

// Number parsing for element text. Leading/trailing whitespace is ignored; anything else
// that is not a number gives nullopt. parse_xml_double accepts "nan"/"inf" spellings
// (a client's printf of a broken statistic) and returns 0 for them, as BOINC does.
std::optional<double> parse_xml_double(std::string_view text);
std::optional<int64_t> parse_xml_int(std::string_view text);
// BOINC booleans: empty text (from <tag/>) or a non-zero integer is true, "0" is false.
std::optional<bool> parse_xml_bool(std::string_view text);

std::string_view trim_xml_space(std::string_view text);

// 1-based line of byte `offset` in `text` (offset clamped to the text).
int line_at(std::string_view text, std::ptrdiff_t offset);

// Text shortened for an error message: at most 40 bytes, cut at a character boundary,
// control characters as '?', what is not UTF-8 as U+FFFD.
std::string quote_for_message(std::string_view text);

}  // namespace tharsis
