// Implementation of sched/lib/submit/form_body.h.
#include "sched/lib/submit/form_body.h"

#include <cctype>
#include <functional>
#include <optional>

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

// A parameter (name="..." or filename="...") of a part's Content-Disposition header.
std::string disposition_parameter(std::string_view headers, std::string_view parameter) {
  size_t line_start = 0;
  while (line_start < headers.size()) {
    size_t line_end = headers.find("\r\n", line_start);
    if (line_end == std::string_view::npos) line_end = headers.size();
    std::string_view line = headers.substr(line_start, line_end - line_start);
    if (starts_with_ci(line, "content-disposition:")) {
      std::string key = std::string(parameter) + "=\"";
      for (size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
        if (at != 0 && line[at - 1] != ' ' && line[at - 1] != ';') continue;
        size_t end = line.find('"', at + key.size());
        if (end != std::string_view::npos)
          return std::string(line.substr(at + key.size(), end - at - key.size()));
      }
    }
    line_start = line_end + 2;
  }
  return "";
}

// Calls `part(headers, content)` for each part of the multipart body `body` (one that
// starts with "--<boundary>"), in order, until it returns false or an error, or the
// closing boundary. Errors: a malformed body, or the error `part` returned.
Status for_each_multipart_part(std::string_view body,
                               const std::function<Result<bool>(std::string_view, std::string_view)>& part) {
  size_t first_line_end = body.find("\r\n");
  if (first_line_end == std::string_view::npos || first_line_end < 3 || first_line_end > 200) {
    return make_error("multipart body without a boundary line");
  }
  std::string delimiter = "\r\n" + std::string(body.substr(0, first_line_end));
  size_t at = first_line_end + 2;
  while (at < body.size()) {
    size_t headers_end = body.find("\r\n\r\n", at);
    if (headers_end == std::string_view::npos) return make_error("multipart part without a header end");
    size_t content = headers_end + 4;
    size_t end = body.find(delimiter, content);
    if (end == std::string_view::npos) return make_error("multipart part without a closing boundary");
    Result<bool> go_on = part(body.substr(at, headers_end - at), body.substr(content, end - content));
    if (!go_on.ok()) return make_error(go_on.error());
    if (!*go_on) break;
    at = end + delimiter.size();
    if (body.substr(at, 2) == "--") break;  // the closing boundary
    at += 2;                                // the CRLF after a boundary
  }
  return Status::success();
}

Result<std::string> from_multipart(std::string_view body) {
  std::optional<std::string> request;
  Status walked = for_each_multipart_part(body, [&](std::string_view headers, std::string_view content) {
    if (disposition_parameter(headers, "name") != "request") return Result<bool>(true);
    request = std::string(content);
    return Result<bool>(false);
  });
  if (!walked.ok()) return make_error(walked.error());
  if (!request) return make_error("the form has no field 'request'");
  return *request;
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

Result<std::vector<FormPart>> multipart_parts(std::string_view body, size_t max_parts) {
  std::vector<FormPart> parts;
  if (body.substr(0, 2) != "--") return parts;
  Status walked = for_each_multipart_part(body, [&](std::string_view headers, std::string_view content) {
    if (parts.size() >= max_parts)
      return Result<bool>(make_error("more than " + std::to_string(max_parts) + " form parts"));
    parts.push_back(FormPart{disposition_parameter(headers, "name"),
                             disposition_parameter(headers, "filename"), content});
    return Result<bool>(true);
  });
  if (!walked.ok()) return make_error(walked.error());
  return parts;
}

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
