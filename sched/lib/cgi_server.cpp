// Implementation of sched/lib/cgi_server.h.
#include "sched/lib/cgi_server.h"

#include <fcgiapp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "sched/lib/fastcgi_pool.h"

namespace tharsis {
namespace {

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
  }
  return "Status";
}

// Under plain CGI, Apache (mod_cgid) writes the whole request body into our stdin before
// it reads our answer; if we exit with part of the body unread, its write fails (EPIPE)
// and the client gets no answer at all, not ours. mod_fcgid likewise sends the whole body
// first. So the rest is read and dropped, up to kMaxDiscardBytes.
void finish_body(BodyReader& body) { body.discard(kMaxDiscardBytes); }

}  // namespace

RequestHead read_request_head(const std::function<std::string(const char*)>& param) {
  RequestHead head;
  head.method = param("REQUEST_METHOD");
  head.query_string = param("QUERY_STRING");
  head.remote_addr = param("REMOTE_ADDR");
  std::string length_text = param("CONTENT_LENGTH");
  if (!length_text.empty()) {
    char* end = nullptr;
    errno = 0;
    unsigned long long parsed = std::strtoull(length_text.c_str(), &end, 10);
    bool digits =
        std::all_of(length_text.begin(), length_text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || *end != '\0' || errno == ERANGE) {
      head.bad_content_length = true;
    } else {
      head.content_length = static_cast<uint64_t>(parsed);
    }
  }
  return head;
}

BodyReader::BodyReader(std::function<size_t(char*, size_t)> source, std::optional<uint64_t> content_length)
    : source_(std::move(source)), content_length_(content_length) {
  if (content_length_ && *content_length_ == 0) ended_ = true;
}

size_t BodyReader::read(char* buffer, size_t n) {
  if (ended_ || n == 0) return 0;
  if (content_length_) n = static_cast<size_t>(std::min<uint64_t>(n, *content_length_ - read_));
  size_t got = source_(buffer, n);
  read_ += got;
  if (got == 0 || (content_length_ && read_ == *content_length_)) ended_ = true;
  return got;
}

size_t BodyReader::read_full(char* buffer, size_t n) {
  size_t got = 0;
  while (got < n) {
    size_t k = read(buffer + got, n - got);
    if (k == 0) break;
    got += k;
  }
  return got;
}

uint64_t BodyReader::discard(uint64_t limit) {
  if (ended_) return 0;
  std::vector<char> buffer(size_t{1} << 16);
  uint64_t dropped = 0;
  while (dropped < limit) {
    size_t n = read(buffer.data(), static_cast<size_t>(std::min<uint64_t>(buffer.size(), limit - dropped)));
    if (n == 0) break;
    dropped += n;
  }
  return dropped;
}

HttpRequest read_http_request(const RequestHead& head, BodyReader& body, size_t max_body) {
  HttpRequest request;
  request.method = head.method;
  request.query_string = head.query_string;
  request.remote_addr = head.remote_addr;
  if (head.bad_content_length || (head.content_length && *head.content_length > max_body)) {
    request.body_too_large = true;
    return request;
  }
  if (head.content_length) {
    request.body.resize(static_cast<size_t>(*head.content_length));
    request.body.resize(body.read_full(request.body.data(), request.body.size()));
  } else {
    // No Content-Length (a chunked body): read to the end; one byte past the limit shows
    // the body is over it.
    std::vector<char> chunk(size_t{1} << 16);
    while (request.body.size() <= max_body) {
      size_t n = body.read(chunk.data(), std::min(chunk.size(), max_body + 1 - request.body.size()));
      if (n == 0) break;
      request.body.append(chunk.data(), n);
    }
    if (request.body.size() > max_body) {
      request.body = std::string();
      request.body_too_large = true;
    }
  }
  request.body_truncated = body.truncated();
  return request;
}

HttpRequest read_http_request(const std::function<std::string(const char*)>& param,
                              const std::function<size_t(char*, size_t)>& read_body, size_t max_body) {
  RequestHead head = read_request_head(param);
  BodyReader body(read_body, head.content_length);
  return read_http_request(head, body, max_body);
}

std::string render_http_response(const HttpResponse& response) {
  std::string out = "Status: " + std::to_string(response.status) + " " + reason(response.status) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n\r\n";
  out += response.body;
  return out;
}

int serve_cgi_or_fastcgi_streaming(const StreamingHandler& handler, int64_t max_requests) {
  if (FCGX_IsCGI()) {
    RequestHead head = read_request_head([](const char* name) {
      const char* value = std::getenv(name);
      return std::string(value ? value : "");
    });
    BodyReader body([](char* buffer, size_t n) { return std::fread(buffer, 1, n, stdin); },
                    head.bad_content_length ? std::nullopt : head.content_length);
    HttpResponse response = handler(head, body);
    finish_body(body);
    std::string out = render_http_response(response);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  FCGX_Init();
  return serve_fastcgi_on(0, handler, max_requests);  // mod_fcgid hands us the socket as stdin
}

namespace {

RequestHead fastcgi_head(FCGX_Request& fcgi) {
  return read_request_head([&fcgi](const char* name) {
    const char* value = FCGX_GetParam(name, fcgi.envp);
    return std::string(value ? value : "");
  });
}

BodyReader fastcgi_body(FCGX_Request& fcgi, const RequestHead& head) {
  return BodyReader(
      [&fcgi](char* buffer, size_t n) {
        int got = FCGX_GetStr(buffer, static_cast<int>(std::min<size_t>(n, INT_MAX)), fcgi.in);
        return got > 0 ? static_cast<size_t>(got) : size_t{0};
      },
      head.bad_content_length ? std::nullopt : head.content_length);
}

void send_response(FCGX_Request& fcgi, const HttpResponse& response) {
  std::string out = render_http_response(response);
  FCGX_PutStr(out.data(), static_cast<int>(out.size()), fcgi.out);
  FCGX_Finish_r(&fcgi);
}

}  // namespace

int serve_fastcgi_on(int listen_fd, const StreamingHandler& handler, int64_t max_requests,
                     const BetweenRequests& between_requests) {
  FCGX_Request fcgi;
  FCGX_InitRequest(&fcgi, listen_fd, 0);
  for (int64_t served = 0; max_requests == 0 || served < max_requests; ++served) {
    if (between_requests && !pool_worker_stopping()) between_requests();
    if (pool_worker_stopping() || FCGX_Accept_r(&fcgi) < 0) break;
    pool_worker_request_started();
    RequestHead head = fastcgi_head(fcgi);
    BodyReader body = fastcgi_body(fcgi, head);
    HttpResponse response = handler(head, body);
    finish_body(body);
    send_response(fcgi, response);
    pool_worker_request_finished();
  }
  return 0;
}

int serve_fastcgi_threads_on(int listen_fd, const StreamingHandler& handler, int threads) {
  std::vector<std::thread> serving;
  for (int i = 0; i < std::max(threads, 1); ++i)
    serving.emplace_back([&] { serve_fastcgi_on(listen_fd, handler); });
  for (auto& thread : serving) thread.join();
  return 0;
}

StreamingHandler whole_body(const RequestHandler& handler, size_t max_body) {
  return [handler, max_body](const RequestHead& head, BodyReader& body) {
    return handler(read_http_request(head, body, max_body));
  };
}

int serve_cgi_or_fastcgi(const RequestHandler& handler, size_t max_body, int64_t max_requests) {
  return serve_cgi_or_fastcgi_streaming(whole_body(handler, max_body), max_requests);
}

}  // namespace tharsis
