// Serving HTTP requests as a CGI or FastCGI program from one source: under mod_fcgid the
// process is FastCGI (stdin is a listening socket) and loops over requests; under plain
// CGI it handles exactly one. Bodies are read with a hard size limit; a request over it,
// or with a bad Content-Length, gets an error response from the caller's `too_large`
// handler without the body being kept (under CGI the rest is read and dropped, so the
// web server can deliver that response). Handlers never see raw I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace tharsis {

struct HttpRequest {
  std::string method;        // REQUEST_METHOD
  std::string query_string;  // QUERY_STRING
  std::string remote_addr;   // REMOTE_ADDR
  std::string body;
  bool body_too_large = false;  // Content-Length over the limit (body left unread)
  bool body_truncated = false;  // fewer bytes arrived than Content-Length said
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/xml";
  std::string body;
};

using RequestHandler = std::function<HttpResponse(const HttpRequest&)>;

// Builds the request from CGI parameters (`param` returns "" for unset ones) and a body
// reader that reads up to n bytes into a buffer and returns the count (0 at end).
HttpRequest read_http_request(const std::function<std::string(const char*)>& param,
                              const std::function<size_t(char*, size_t)>& read_body, size_t max_body);

// The CGI/NPH header block + body for `response`.
std::string render_http_response(const HttpResponse& response);

// Runs as CGI (one request) or FastCGI (until the server stops us or `max_requests` is
// reached, 0 = no limit). Returns the process exit code.
int serve_cgi_or_fastcgi(const RequestHandler& handler, size_t max_body, int64_t max_requests = 0);

}  // namespace tharsis
