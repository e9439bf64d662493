// Implementation of sched/lib/submit/form_body.h.
#include "sched/lib/submit/form_body.h"

#include <cctype>

#include "lib/protocol/xml_text.h"

namespace tharsis {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

// The form field name in a part's Content-Disposition header ("" if none).
std::string part_name(std::string_view headers) {
  size_t line_start = 0;
  while (line_start < headers.size()) {
    size_t line_end = headers.find("\r\n", line_start);
    if (line_end == std::string_view::npos) line_end = headers.size();
    std::string_view line = headers.substr(line_start, line_end - line_start);
    if (starts_with_ci(line, "content-disposition:")) {
      size_t at = line.find("name=\"");
      if (at != std::string_view::npos && (at == 0 || line[at - 1] == ' ' || line[at - 1] == ';')) {
        size_t end = line.find('"', at + 6);
        if (end != std::string_view::npos) return std::string(line.substr(at + 6, end - at - 6));
      }
    }
    line_start = line_end + 2;
  }
  return "";
}

Result<std::string> from_multipart(std::string_view body) {
  size_t first_line_end = body.find("\r\n");
  if (first_line_end == std::string_view::npos || first_line_end < 3 || first_line_end > 200) {
    return make_error("multipart body without a boundary line");
  }
  std::string delimiter = "\r\n" + std::string(body.substr(0, first_line_end));
  size_t at = first_line_end + 2;
  while (at < body.size()) {
    size_t headers_end = body.find("\r\n\r\n", at);
    if (headers_end == std::string_view::npos) return make_error("multipart part without a header end");
    std::string name = part_name(body.substr(at, headers_end - at));
    size_t content = headers_end + 4;
    size_t end = body.find(delimiter, content);
    if (end == std::string_view::npos) return make_error("multipart part without a closing boundary");
    if (name == "request") return std::string(body.substr(content, end - content));
    at = end + delimiter.size();
    if (body.substr(at, 2) == "--") break;  // the closing boundary
    at += 2;                                // the CRLF after a boundary
  }
  return make_error("the form has no field 'request'");
}

Result<std::string> from_urlencoded(std::string_view body) {
  size_t at = 0;
  while (at <= body.size()) {
    size_t end = body.find('&', at);
    if (end == std::string_view::npos) end = body.size();
    std::string_view pair = body.substr(at, end - at);
    size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == "request")
      return url_decode(pair.substr(eq + 1));
    at = end + 1;
  }
  return make_error("the form has no field 'request'");
}

}  // namespace

Result<std::string> url_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      int high = i + 2 < text.size() ? hex_value(text[i + 1]) : -1;
      int low = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
      if (high < 0 || low < 0)
        return make_error("bad percent-escape at byte " + std::to_string(i) + " of the form");
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

Result<std::string> extract_request_document(std::string_view body) {
  std::string_view trimmed = trim_xml_space(body);
  if (trimmed.empty()) return make_error("empty request body");
  if (trimmed.front() == '<') return std::string(trimmed);
  if (body.substr(0, 2) == "--") return from_multipart(body);
  return from_urlencoded(body);
}

}  // namespace tharsis
