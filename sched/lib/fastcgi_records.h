// The FastCGI responder protocol's records (FastCGI 1.0: 8-byte record headers; a
// request is BEGIN_REQUEST, PARAMS until an empty PARAMS record, STDIN until an empty
// STDIN record; the answer is STDOUT records, an empty STDOUT record and END_REQUEST),
// read incrementally from whatever bytes have arrived, so that a worker can hold many
// connections at once and serve a request only when the whole of it is there: a client
// that sends its body slowly then holds a buffer, not a worker (fastcgi_group_server.h).
// Pure: no I/O. Memory is bounded: the parameters by kMaxFastCgiParamBytes, the body by
// the caller's limit (bytes past it are counted and dropped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tharsis {

// The most bytes of name-value pairs a request may carry: Apache passes every HTTP header
// as a parameter, and its own default limits allow about 800 KiB of them.
inline constexpr size_t kMaxFastCgiParamBytes = size_t{1} << 20;

class FastCgiRequestReader {
 public:
  enum class State { kReading, kComplete, kFailed };

  // Keeps at most max_body + 1 bytes of the body (one past the limit shows it was over).
  explicit FastCgiRequestReader(size_t max_body) : max_body_(max_body) {}

  // Takes the next bytes of the connection. Complete: the request's last record has
  // arrived (bytes after it are ignored: we answer one request per connection). Failed:
  // the bytes are not a responder request we serve (error() says why).
  State feed(std::string_view bytes);
  State state() const { return state_; }
  const std::string& error() const { return error_; }

  uint16_t request_id() const { return request_id_; }
  // The CGI parameters (REQUEST_METHOD, CONTENT_LENGTH, ...); complete once state() is.
  const std::map<std::string, std::string>& params() const { return params_; }
  // The body as kept (at most max_body + 1 bytes) and its full length as sent.
  const std::string& body() const { return body_; }
  uint64_t body_bytes_sent() const { return body_sent_; }

 private:
  State fail(std::string why);
  State take_record(uint8_t type, uint16_t id, std::string_view content);
  bool parse_params();

  size_t max_body_;
  State state_ = State::kReading;
  std::string error_;
  std::string pending_;  // bytes of a record not yet whole
  bool begun_ = false, params_done_ = false;
  uint16_t request_id_ = 0;
  std::string param_bytes_;
  std::map<std::string, std::string> params_;
  std::string body_;
  uint64_t body_sent_ = 0;
};

// The records that answer request `id` with `output` (the CGI response: headers, a blank
// line, the body): STDOUT records of at most 65535 bytes, the empty STDOUT record that
// ends the stream, then END_REQUEST (application status 0, request complete).
std::string fastcgi_response_records(uint16_t id, std::string_view output);

// One record (for tests and for the end-of-request record): header, content, padding to
// a multiple of 8 bytes.
std::string fastcgi_record(uint8_t type, uint16_t id, std::string_view content);

// Record types used here (FastCGI 1.0).
inline constexpr uint8_t kFcgiBeginRequest = 1, kFcgiAbortRequest = 2, kFcgiEndRequest = 3, kFcgiParams = 4,
                         kFcgiStdin = 5, kFcgiStdout = 6;
inline constexpr uint16_t kFcgiResponderRole = 1;

}  // namespace tharsis
