// Implementation of sched/lib/fastcgi_records.h.
#include "sched/lib/fastcgi_records.h"

#include <algorithm>

namespace tharsis {
namespace {

constexpr size_t kHeaderBytes = 8;
constexpr uint8_t kVersion = 1;

uint8_t byte_at(std::string_view s, size_t i) { return static_cast<uint8_t>(s[i]); }

// A name-value pair's length: one byte below 128, else four with the top bit set.
bool read_length(std::string_view s, size_t& at, size_t& out) {
  if (at >= s.size()) return false;
  if (byte_at(s, at) < 0x80) {
    out = byte_at(s, at++);
    return true;
  }
  if (s.size() - at < 4) return false;
  out = (size_t{byte_at(s, at)} & 0x7f) << 24 | size_t{byte_at(s, at + 1)} << 16 |
        size_t{byte_at(s, at + 2)} << 8 | byte_at(s, at + 3);
  at += 4;
  return true;
}

}  // namespace

FastCgiRequestReader::State FastCgiRequestReader::fail(std::string why) {
  error_ = std::move(why);
  pending_.clear();
  return state_ = State::kFailed;
}

FastCgiRequestReader::State FastCgiRequestReader::feed(std::string_view bytes) {
  if (state_ != State::kReading) return state_;
  pending_.append(bytes);
  size_t at = 0;
  while (state_ == State::kReading && pending_.size() - at >= kHeaderBytes) {
    std::string_view header(pending_.data() + at, kHeaderBytes);
    if (byte_at(header, 0) != kVersion) return fail("not a FastCGI 1 record");
    const size_t length = size_t{byte_at(header, 4)} << 8 | byte_at(header, 5);
    const size_t total = kHeaderBytes + length + byte_at(header, 6);
    if (pending_.size() - at < total) break;
    const uint16_t id = static_cast<uint16_t>(byte_at(header, 2) << 8 | byte_at(header, 3));
    take_record(byte_at(header, 1), id, std::string_view(pending_.data() + at + kHeaderBytes, length));
    at += total;
  }
  if (state_ == State::kReading) {
    pending_.erase(0, at);
  } else {
    pending_.clear();
  }
  return state_;
}

FastCgiRequestReader::State FastCgiRequestReader::take_record(uint8_t type, uint16_t id,
                                                              std::string_view content) {
  if (id == 0) return state_;  // a management record (FCGI_GET_VALUES): nothing we need to answer
  if (type == kFcgiBeginRequest) {
    if (begun_) return fail("a second request on the connection");
    if (content.size() < 8) return fail("a short BEGIN_REQUEST record");
    const uint16_t role = static_cast<uint16_t>(byte_at(content, 0) << 8 | byte_at(content, 1));
    if (role != kFcgiResponderRole)
      return fail("role " + std::to_string(role) + " (only the responder is served)");
    begun_ = true;
    request_id_ = id;
    return state_;
  }
  if (!begun_) return fail("a record before BEGIN_REQUEST");
  if (id != request_id_) return fail("records of two requests on one connection");
  switch (type) {
    case kFcgiAbortRequest:
      return fail("the web server aborted the request");
    case kFcgiParams:
      if (params_done_) return fail("parameters after their end");
      if (content.empty()) {
        params_done_ = true;
        if (!parse_params()) return fail("malformed parameters");
        return state_;
      }
      if (param_bytes_.size() + content.size() > kMaxFastCgiParamBytes)
        return fail("parameters over " + std::to_string(kMaxFastCgiParamBytes) + " bytes");
      param_bytes_.append(content);
      return state_;
    case kFcgiStdin:
      if (content.empty()) {
        if (!params_done_) return fail("the body ended before the parameters");
        return state_ = State::kComplete;
      }
      body_sent_ += content.size();
      if (body_.size() <= max_body_) body_.append(content.substr(0, max_body_ + 1 - body_.size()));
      return state_;
    default:
      return state_;  // FCGI_DATA (the filter role's) and unknown types: not ours to read
  }
}

bool FastCgiRequestReader::parse_params() {
  std::string_view s = param_bytes_;
  size_t at = 0;
  while (at < s.size()) {
    size_t name_length = 0, value_length = 0;
    if (!read_length(s, at, name_length) || !read_length(s, at, value_length)) return false;
    if (name_length > s.size() - at || value_length > s.size() - at - name_length) return false;
    params_.insert_or_assign(std::string(s.substr(at, name_length)),
                             std::string(s.substr(at + name_length, value_length)));
    at += name_length + value_length;
  }
  param_bytes_ = std::string();
  return true;
}

std::string fastcgi_record(uint8_t type, uint16_t id, std::string_view content) {
  const size_t padding = (8 - content.size() % 8) % 8;
  std::string out;
  out.reserve(kHeaderBytes + content.size() + padding);
  out += static_cast<char>(kVersion);
  out += static_cast<char>(type);
  out += static_cast<char>(id >> 8);
  out += static_cast<char>(id & 0xff);
  out += static_cast<char>(content.size() >> 8);
  out += static_cast<char>(content.size() & 0xff);
  out += static_cast<char>(padding);
  out += '\0';
  out.append(content);
  out.append(padding, '\0');
  return out;
}

std::string fastcgi_response_records(uint16_t id, std::string_view output) {
  constexpr size_t kMaxContent = 65535;
  std::string out;
  out.reserve(output.size() + (output.size() / kMaxContent + 3) * 16 + 16);
  for (size_t at = 0; at < output.size(); at += kMaxContent)
    out += fastcgi_record(kFcgiStdout, id, output.substr(at, std::min(kMaxContent, output.size() - at)));
  out += fastcgi_record(kFcgiStdout, id, {});
  // END_REQUEST: application status 0 (4 bytes), FCGI_REQUEST_COMPLETE (0), 3 reserved.
  out += fastcgi_record(kFcgiEndRequest, id, std::string_view("\0\0\0\0\0\0\0\0", 8));
  return out;
}

}  // namespace tharsis
