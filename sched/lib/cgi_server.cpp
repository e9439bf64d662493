// Implementation of sched/lib/cgi_server.h.
#include "sched/lib/cgi_server.h"

#include <fcgiapp.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace tharsis {
namespace {

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Payload Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
  }
  return "Status";
}

// Under plain CGI, Apache (mod_cgid) writes the whole request body into our stdin before
// it reads our answer; if we exit with part of an over-limit body unread, its write fails
// (EPIPE) and the client gets no answer at all, not our error reply. So the rest is read
// and dropped — up to a bound past which the sender gets the reset it asked for (Apache's
// Timeout bounds how slowly it can send).
void discard_unread_body() {
  constexpr size_t kMaxDiscardBytes = size_t{1} << 30;
  static char buffer[1 << 16];
  for (size_t discarded = 0; discarded < kMaxDiscardBytes;) {
    size_t n = std::fread(buffer, 1, sizeof buffer, stdin);
    if (n == 0) break;
    discarded += n;
  }
}

}  // namespace

HttpRequest read_http_request(const std::function<std::string(const char*)>& param,
                              const std::function<size_t(char*, size_t)>& read_body, size_t max_body) {
  HttpRequest request;
  request.method = param("REQUEST_METHOD");
  request.query_string = param("QUERY_STRING");
  request.remote_addr = param("REMOTE_ADDR");
  std::string length_text = param("CONTENT_LENGTH");
  size_t length = 0;
  if (!length_text.empty()) {
    char* end = nullptr;
    unsigned long long parsed = std::strtoull(length_text.c_str(), &end, 10);
    if (*end != '\0' || length_text[0] == '-') {
      request.body_too_large = true;  // unparsable: treat as refused
      return request;
    }
    if (parsed > max_body) {
      request.body_too_large = true;
      return request;
    }
    length = static_cast<size_t>(parsed);
  }
  request.body.resize(length);
  size_t got = 0;
  while (got < length) {
    size_t n = read_body(request.body.data() + got, length - got);
    if (n == 0) break;
    got += n;
  }
  if (got < length) {
    request.body.resize(got);
    request.body_truncated = true;
  }
  return request;
}

std::string render_http_response(const HttpResponse& response) {
  std::string out = "Status: " + std::to_string(response.status) + " " + reason(response.status) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n\r\n";
  out += response.body;
  return out;
}

int serve_cgi_or_fastcgi(const RequestHandler& handler, size_t max_body, int64_t max_requests) {
  if (FCGX_IsCGI()) {
    auto param = [](const char* name) {
      const char* value = std::getenv(name);
      return std::string(value ? value : "");
    };
    auto read_body = [](char* buffer, size_t n) { return std::fread(buffer, 1, n, stdin); };
    HttpResponse response = handler(read_http_request(param, read_body, max_body));
    discard_unread_body();
    std::string out = render_http_response(response);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  FCGX_Init();
  FCGX_Request fcgi;
  FCGX_InitRequest(&fcgi, 0, 0);
  for (int64_t served = 0; max_requests == 0 || served < max_requests; ++served) {
    if (FCGX_Accept_r(&fcgi) < 0) break;
    auto param = [&fcgi](const char* name) {
      const char* value = FCGX_GetParam(name, fcgi.envp);
      return std::string(value ? value : "");
    };
    auto read_body = [&fcgi](char* buffer, size_t n) {
      int got = FCGX_GetStr(buffer, static_cast<int>(n), fcgi.in);
      return got > 0 ? static_cast<size_t>(got) : size_t{0};
    };
    HttpResponse response = handler(read_http_request(param, read_body, max_body));
    std::string out = render_http_response(response);
    FCGX_PutStr(out.data(), static_cast<int>(out.size()), fcgi.out);
    FCGX_Finish_r(&fcgi);
  }
  return 0;
}

}  // namespace tharsis
