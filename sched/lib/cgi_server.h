// Serving HTTP requests as a CGI or FastCGI program from one source: under mod_fcgid the
// process is FastCGI (stdin is a listening socket) and loops over requests; under plain
// CGI it handles exactly one. Handlers never see raw I/O. Two ways to take a request:
//  - streaming (serve_cgi_or_fastcgi_streaming): the handler gets the CGI parameters and a
//    BodyReader that hands out the body in pieces of the handler's choosing, so a large
//    body (an upload) never sits in memory and a refusal costs no more than the bytes read;
//  - whole (serve_cgi_or_fastcgi): the body as one string under a hard size limit; a
//    request over it, or with a bad Content-Length, gets an error response from the
//    caller's handler (body_too_large) without the body being kept.
// A body without Content-Length (Apache passes a `Transfer-Encoding: chunked` body to a
// CGI that way) is read to its end. Whatever the handler leaves unread is read and
// dropped before the response is written (bounded), so the web server, which writes the
// whole body before it reads the answer, can deliver that answer.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tharsis {

// The CGI parameters of a request.
struct RequestHead {
  std::string method;        // REQUEST_METHOD
  std::string query_string;  // QUERY_STRING
  std::string remote_addr;   // REMOTE_ADDR
  // CONTENT_LENGTH; nullopt when absent (a chunked body: read to its end).
  std::optional<uint64_t> content_length;
  bool bad_content_length = false;  // present but not a byte count
};

// Builds the head from CGI parameters (`param` returns "" for unset ones).
RequestHead read_request_head(const std::function<std::string(const char*)>& param);

// A request body, read in pieces: never more than Content-Length bytes, or, without one,
// up to the end of input.
class BodyReader {
 public:
  // `source` reads up to n bytes into a buffer and returns the count (0 at end of input).
  BodyReader(std::function<size_t(char*, size_t)> source, std::optional<uint64_t> content_length);

  // Up to n bytes into `buffer`; 0 only at the end of the body (or of the input).
  size_t read(char* buffer, size_t n);
  // Reads until `buffer` holds `n` bytes or the body ends; returns the count.
  size_t read_full(char* buffer, size_t n);
  std::optional<uint64_t> content_length() const { return content_length_; }
  // The input ended: with a Content-Length, `truncated` says it ended early.
  bool at_end() const { return ended_; }
  bool truncated() const { return ended_ && content_length_ && read_ < *content_length_; }
  // Reads and drops the rest, at most `limit` more bytes; returns how many were dropped.
  uint64_t discard(uint64_t limit);

 private:
  std::function<size_t(char*, size_t)> source_;
  std::optional<uint64_t> content_length_;
  uint64_t read_ = 0;
  bool ended_ = false;
};

struct HttpRequest {
  std::string method;        // REQUEST_METHOD
  std::string query_string;  // QUERY_STRING
  std::string remote_addr;   // REMOTE_ADDR
  std::string body;
  bool body_too_large = false;  // over the limit or a bad Content-Length (body not kept)
  bool body_truncated = false;  // fewer bytes arrived than Content-Length said
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/xml";
  std::string body;
};

using RequestHandler = std::function<HttpResponse(const HttpRequest&)>;
using StreamingHandler = std::function<HttpResponse(const RequestHead&, BodyReader&)>;

// A streaming handler that reads the whole body (read_http_request) and hands it to `handler`.
StreamingHandler whole_body(const RequestHandler& handler, size_t max_body);
// The whole-body request from a head and its body: at most max_body bytes are kept; a
// declared or (without Content-Length) actual body over that is body_too_large.
HttpRequest read_http_request(const RequestHead& head, BodyReader& body, size_t max_body);
// The same from CGI parameters and a raw body source (see BodyReader).
HttpRequest read_http_request(const std::function<std::string(const char*)>& param,
                              const std::function<size_t(char*, size_t)>& read_body, size_t max_body);

// The CGI/NPH header block + body for `response`.
std::string render_http_response(const HttpResponse& response);

// Bytes of an unread body dropped after the handler at most; past that the sender gets
// the reset it asked for (Apache's LimitRequestBody is 1 GiB by default too).
inline constexpr uint64_t kMaxDiscardBytes = uint64_t{1} << 30;

// Runs as CGI (one request) or FastCGI (until the server stops us or `max_requests` is
// reached, 0 = no limit). Returns the process exit code.
int serve_cgi_or_fastcgi_streaming(const StreamingHandler& handler, int64_t max_requests = 0);
int serve_cgi_or_fastcgi(const RequestHandler& handler, size_t max_body, int64_t max_requests = 0);
// Work a FastCGI process does while no request waits on it: before it first waits for a
// request and after each reply has been sent (e.g. reading ahead what the next request needs).
using BetweenRequests = std::function<void()>;
// The FastCGI request loop on a listening socket of our own (a pool worker's, see
// sched/lib/fastcgi_pool.h); FCGX_Init() must have run. Ends when the pool stops the worker.
int serve_fastcgi_on(int listen_fd, const StreamingHandler& handler, int64_t max_requests = 0,
                     const BetweenRequests& between_requests = {});
// The same loop in `threads` threads of one pool worker, for a streaming handler whose
// requests take as long as their clients send (uploads): a slow client holds a thread, not
// the worker. `handler` must be safe to run in several threads at once.
int serve_fastcgi_threads_on(int listen_fd, const StreamingHandler& handler, int threads);

// Several whole-body requests at once (a worker's group): one response per request, in order.
// Served by sched/lib/fastcgi_group_server.h.
using GroupHandler = std::function<std::vector<HttpResponse>(const std::vector<HttpRequest>&)>;

}  // namespace tharsis
