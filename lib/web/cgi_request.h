// The GET side of the status-page CGI programs: QUERY_STRING parsed defensively (bounded
// length, strict percent-decoding, parameter names from a small alphabet, no duplicates,
// no control characters in values) into typed getters whose errors say which parameter,
// what was expected and what was found; and the CGI response text (Status, Content-Type,
// Content-Length, body). Input is untrusted: nothing here throws on bad input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "lib/result.h"

namespace tharsis {

inline constexpr size_t kMaxQueryStringLength = 2048;

// Decodes %XX (either case) and '+' as space. Rejects a '%' not followed by two hex
// digits, and a decoded NUL.
Result<std::string> percent_decode(std::string_view text);

class QueryParams {
 public:
  // "a=1&b=x%20y". Empty pairs ("a=1&&b=2") are skipped; a pair without '=' has value "".
  // Errors: longer than max_length, a bad escape, a name not [A-Za-z0-9_.-]{1,64}, a
  // name given twice, a value with control characters.
  static Result<QueryParams> parse(std::string_view query_string, size_t max_length = kMaxQueryStringLength);

  bool has(std::string_view name) const;
  // Missing -> error "missing parameter 'name'".
  Result<std::string> get_string(std::string_view name) const;
  // Missing -> fallback.
  std::string get_string_or(std::string_view name, std::string_view fallback) const;
  // A decimal integer in [min, max]; missing, non-numeric or out of range -> error.
  Result<int64_t> get_int(std::string_view name, int64_t min, int64_t max) const;
  // Missing -> fallback; present but bad -> error (a typo must not silently mean default).
  Result<int64_t> get_int_or(std::string_view name, int64_t fallback, int64_t min, int64_t max) const;
  // One of the words in `allowed` (e.g. format=html|json|prometheus); missing -> fallback.
  Result<std::string> get_choice_or(std::string_view name, std::initializer_list<std::string_view> allowed,
                                    std::string_view fallback) const;

  const std::map<std::string, std::string, std::less<>>& all() const { return params_; }

 private:
  std::map<std::string, std::string, std::less<>> params_;
};

struct CgiResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
};

// The reason phrase for the codes the pages use (200, 400, 404, 405, 500, 503); "Unknown"
// otherwise.
std::string_view http_reason_phrase(int status);

// "Status: 200 OK\r\nContent-Type: ...\r\nContent-Length: n\r\n
//  Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n" + body.
std::string render_cgi_response(const CgiResponse& response);

// A small HTML error page (escaped message) with the given status.
CgiResponse cgi_error_response(int status, std::string_view message);

}  // namespace tharsis
