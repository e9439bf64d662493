// The FastCGI record reader (sched/lib/fastcgi_records.h): a request read from bytes in any
// pieces, its limits, and the answer's records.
#include "sched/lib/fastcgi_records.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tharsis::fastcgi_records_test {
namespace {

using State = FastCgiRequestReader::State;

std::string pair_length(size_t n) {
  if (n < 128) return std::string(1, static_cast<char>(n));
  return {static_cast<char>(0x80 | (n >> 24)), static_cast<char>((n >> 16) & 0xff),
          static_cast<char>((n >> 8) & 0xff), static_cast<char>(n & 0xff)};
}

std::string pairs(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [name, value] : params)
    out += pair_length(name.size()) + pair_length(value.size()) + name + value;
  return out;
}

std::string begin(uint16_t id, uint16_t role = kFcgiResponderRole) {
  std::string content = {static_cast<char>(role >> 8), static_cast<char>(role & 0xff), 0, 0, 0, 0, 0, 0};
  return fastcgi_record(kFcgiBeginRequest, id, content);
}

// A request as Apache's mod_proxy_fcgi sends it: parameters in records of at most
// `piece` bytes, then the body likewise.
std::string request(uint16_t id, const std::vector<std::pair<std::string, std::string>>& params,
                    const std::string& body, size_t piece = 1000) {
  std::string out = begin(id);
  std::string p = pairs(params);
  for (size_t at = 0; at < p.size(); at += piece) out += fastcgi_record(kFcgiParams, id, p.substr(at, piece));
  out += fastcgi_record(kFcgiParams, id, "");
  for (size_t at = 0; at < body.size(); at += piece)
    out += fastcgi_record(kFcgiStdin, id, body.substr(at, piece));
  out += fastcgi_record(kFcgiStdin, id, "");
  return out;
}

TEST(FastCgiRecords, ARequestReadAByteAtATimeIsWholeOnlyAtItsLastByte) {
  std::string long_value(300, 'v');  // a four-byte length
  std::string bytes = request(
      7, {{"REQUEST_METHOD", "POST"}, {"CONTENT_LENGTH", "13"}, {"HTTP_X", long_value}}, "<hello>world", 5);
  bytes += "\x01";  // whatever follows the request is not read
  FastCgiRequestReader reader(100);
  for (size_t i = 0; i < bytes.size(); ++i) {
    State state = reader.feed(std::string_view(bytes).substr(i, 1));
    if (i + 2 < bytes.size()) {
      ASSERT_EQ(state, State::kReading) << "at byte " << i;
    } else if (i + 2 == bytes.size()) {
      ASSERT_EQ(state, State::kComplete);
    }
  }
  EXPECT_EQ(reader.state(), State::kComplete);
  EXPECT_EQ(reader.request_id(), 7);
  EXPECT_EQ(reader.params().at("REQUEST_METHOD"), "POST");
  EXPECT_EQ(reader.params().at("HTTP_X"), long_value);
  EXPECT_EQ(reader.body(), "<hello>world");
  EXPECT_EQ(reader.body_bytes_sent(), 12u);
}

TEST(FastCgiRecords, ABodyOverTheLimitKeepsOneByteMoreAndCountsTheRest) {
  std::string body(5000, 'b');
  FastCgiRequestReader reader(1000);
  EXPECT_EQ(reader.feed(request(1, {{"REQUEST_METHOD", "POST"}}, body, 700)), State::kComplete);
  EXPECT_EQ(reader.body().size(), 1001u);
  EXPECT_EQ(reader.body_bytes_sent(), 5000u);
}

TEST(FastCgiRecords, AManagementRecordIsPassedOver) {
  std::string bytes = fastcgi_record(9, 0, pairs({{"FCGI_MAX_CONNS", ""}})) + request(1, {{"A", "b"}}, "x");
  FastCgiRequestReader reader(10);
  EXPECT_EQ(reader.feed(bytes), State::kComplete);
  EXPECT_EQ(reader.params().at("A"), "b");
}

TEST(FastCgiRecords, WhatIsNotOneResponderRequestFails) {
  struct Case {
    const char* what;
    std::string bytes;
  };
  std::string ok = request(1, {{"A", "b"}}, "x");
  std::string bad_version = ok;
  bad_version[0] = 2;
  std::string params_overflow = begin(1);
  std::string big(60000, 'p');
  for (size_t sent = 0; sent <= kMaxFastCgiParamBytes; sent += big.size())
    params_overflow += fastcgi_record(kFcgiParams, 1, big);
  std::string bad_pair = begin(1) +
                         fastcgi_record(kFcgiParams, 1,
                                        std::string("\x05\x01"
                                                    "ab",
                                                    4)) +
                         fastcgi_record(kFcgiParams, 1, "");
  const std::vector<Case> cases = {
      {"another version", bad_version},
      {"the authorizer role", begin(1, 2)},
      {"params before begin", fastcgi_record(kFcgiParams, 1, pairs({{"A", "b"}}))},
      {"two requests", begin(1) + begin(2)},
      {"another request's record", begin(1) + fastcgi_record(kFcgiParams, 2, "")},
      {"aborted", begin(1) + fastcgi_record(kFcgiAbortRequest, 1, "")},
      {"body ended before the params", begin(1) + fastcgi_record(kFcgiStdin, 1, "")},
      {"params over the limit", params_overflow},
      {"a pair longer than its record", bad_pair},
  };
  for (const auto& c : cases) {
    FastCgiRequestReader reader(100);
    EXPECT_EQ(reader.feed(c.bytes), State::kFailed) << c.what;
    EXPECT_FALSE(reader.error().empty()) << c.what;
    EXPECT_EQ(reader.feed(ok), State::kFailed) << c.what << ": a failed reader stays failed";
  }
}

TEST(FastCgiRecords, TheAnswerIsStdoutInRecordsThenItsEndThenEndRequest) {
  std::string output(70000, 'o');
  std::string records = fastcgi_response_records(3, output);
  std::string stdout_bytes;
  std::vector<int> types;
  size_t at = 0;
  while (at + 8 <= records.size()) {
    auto byte = [&](size_t i) { return static_cast<unsigned char>(records[at + i]); };
    ASSERT_EQ(byte(0), 1);
    ASSERT_EQ(byte(2) << 8 | byte(3), 3);
    size_t length = byte(4) << 8 | byte(5);
    types.push_back(byte(1));
    if (byte(1) == kFcgiStdout) stdout_bytes += records.substr(at + 8, length);
    EXPECT_EQ((length + byte(6)) % 8, 0u);
    at += 8 + length + byte(6);
  }
  EXPECT_EQ(at, records.size());
  EXPECT_EQ(stdout_bytes, output);
  EXPECT_EQ(types, (std::vector<int>{kFcgiStdout, kFcgiStdout, kFcgiStdout, kFcgiEndRequest}));
}

}  // namespace
}  // namespace tharsis::fastcgi_records_test
