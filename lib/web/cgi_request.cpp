// Query-string parsing and CGI responses (see cgi_request.h).
#include "lib/web/cgi_request.h"

#include <charconv>

#include "lib/web/html_escape.h"

namespace tharsis {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_valid_param_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Shows untrusted text in an error message: bounded, control characters as '?'.
std::string quoted_sample(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 40)) {
    out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  }
  if (text.size() > 40) out += "...";
  return "'" + out + "'";
}

}  // namespace

Result<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      const bool complete = i + 2 < text.size();
      const int high = complete ? hex_value(text[i + 1]) : -1;
      const int low = complete ? hex_value(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return make_error("query string: expected two hex digits after '%' at offset " + std::to_string(i) +
                          ", found " + quoted_sample(text.substr(i, 3)));
      }
      const char decoded = static_cast<char>(high * 16 + low);
      if (decoded == '\0') {
        return make_error("query string: %00 (NUL) is not allowed, at offset " + std::to_string(i));
      }
      out += decoded;
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

Result<QueryParams> QueryParams::parse(std::string_view query_string, size_t max_length) {
  if (query_string.size() > max_length) {
    return make_error("query string: expected at most " + std::to_string(max_length) + " bytes, found " +
                      std::to_string(query_string.size()));
  }
  QueryParams params;
  size_t start = 0;
  while (start <= query_string.size()) {
    size_t end = query_string.find('&', start);
    if (end == std::string_view::npos) end = query_string.size();
    const std::string_view pair = query_string.substr(start, end - start);
    start = end + 1;
    if (pair.empty()) continue;
    const size_t equals = pair.find('=');
    auto name = percent_decode(pair.substr(0, equals));
    if (!name) return make_error(name.error());
    if (!is_valid_param_name(*name)) {
      return make_error(
          "query string: expected a parameter name of letters, digits, '_', '.' or '-' "
          "(1-64 characters), found " +
          quoted_sample(*name));
    }
    auto value =
        percent_decode(equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1));
    if (!value) return make_error(value.error());
    for (char c : *value) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        return make_error("query string: parameter '" + *name + "' contains a control character");
      }
    }
    if (params.params_.count(*name) != 0) {
      return make_error("query string: parameter '" + *name + "' given more than once");
    }
    params.params_.emplace(std::move(*name), std::move(*value));
  }
  return params;
}

bool QueryParams::has(std::string_view name) const { return params_.find(name) != params_.end(); }

Result<std::string> QueryParams::get_string(std::string_view name) const {
  auto it = params_.find(name);
  if (it == params_.end()) return make_error("missing parameter '" + std::string(name) + "'");
  return it->second;
}

std::string QueryParams::get_string_or(std::string_view name, std::string_view fallback) const {
  auto it = params_.find(name);
  return it == params_.end() ? std::string(fallback) : it->second;
}

Result<int64_t> QueryParams::get_int(std::string_view name, int64_t min, int64_t max) const {
  auto it = params_.find(name);
  if (it == params_.end()) return make_error("missing parameter '" + std::string(name) + "'");
  const std::string& text = it->second;
  int64_t number = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto parsed = std::from_chars(begin, end, number);
  if (text.empty() || parsed.ec != std::errc() || parsed.ptr != end) {
    return make_error("parameter '" + std::string(name) + "': expected an integer, found " +
                      quoted_sample(text));
  }
  if (number < min || number > max) {
    return make_error("parameter '" + std::string(name) + "': expected an integer in [" +
                      std::to_string(min) + ", " + std::to_string(max) + "], found " + text);
  }
  return number;
}

Result<int64_t> QueryParams::get_int_or(std::string_view name, int64_t fallback, int64_t min,
                                        int64_t max) const {
  if (!has(name)) return fallback;
  return get_int(name, min, max);
}

Result<std::string> QueryParams::get_choice_or(std::string_view name,
                                               std::initializer_list<std::string_view> allowed,
                                               std::string_view fallback) const {
  auto it = params_.find(name);
  if (it == params_.end()) return std::string(fallback);
  std::string choices;
  for (std::string_view word : allowed) {
    if (word == it->second) return it->second;
    choices += (choices.empty() ? "" : ", ") + std::string(word);
  }
  return make_error("parameter '" + std::string(name) + "': expected one of " + choices + ", found " +
                    quoted_sample(it->second));
}

std::string_view http_reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::string render_cgi_response(const CgiResponse& response) {
  std::string out = "Status: " + std::to_string(response.status) + " " +
                    std::string(http_reason_phrase(response.status)) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  // Status pages show live numbers; a cached copy would mislead an admin.
  out += "Cache-Control: no-store\r\n";
  out += "X-Content-Type-Options: nosniff\r\n\r\n";
  out += response.body;
  return out;
}

CgiResponse cgi_error_response(int status, std::string_view message) {
  CgiResponse response;
  response.status = status;
  const std::string title = std::to_string(status) + " " + std::string(http_reason_phrase(status));
  response.body = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>" +
                  html_escape(title) + "</title></head><body><h1>" + html_escape(title) + "</h1><p>" +
                  html_escape(message) + "</p></body></html>\n";
  return response;
}

}  // namespace tharsis
