// CGI request reading with limits, and response rendering.
#include "sched/lib/cgi_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

namespace tharsis {
namespace {

HttpRequest read(const std::map<std::string, std::string>& env, const std::string& body, size_t max,
                 size_t chunk = 3) {
  size_t at = 0;
  return read_http_request(
      [&](const char* name) {
        auto it = env.find(name);
        return it == env.end() ? std::string() : it->second;
      },
      [&](char* buffer, size_t n) {
        size_t k = std::min({n, chunk, body.size() - at});
        body.copy(buffer, k, at);
        at += k;
        return k;
      },
      max);
}

TEST(CgiServer, ReadsTheWholeBodyInPieces) {
  auto r = read({{"REQUEST_METHOD", "POST"}, {"CONTENT_LENGTH", "11"}}, "hello world", 100);
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.body, "hello world");
  EXPECT_FALSE(r.body_too_large);
  EXPECT_FALSE(r.body_truncated);
}

TEST(CgiServer, RefusesOversizedAndBogusLengthsWithoutReading) {
  EXPECT_TRUE(read({{"CONTENT_LENGTH", "1000"}}, "x", 100).body_too_large);
  EXPECT_TRUE(read({{"CONTENT_LENGTH", "-5"}}, "x", 100).body_too_large);
  EXPECT_TRUE(read({{"CONTENT_LENGTH", "12abc"}}, "x", 100).body_too_large);
  EXPECT_TRUE(read({{"CONTENT_LENGTH", "99999999999999999999999"}}, "x", 100).body_too_large);
}

TEST(CgiServer, NotesATruncatedBody) {
  auto r = read({{"CONTENT_LENGTH", "20"}}, "short", 100);
  EXPECT_TRUE(r.body_truncated);
  EXPECT_EQ(r.body, "short");
}

TEST(CgiServer, ReadsABodyWithoutContentLengthToItsEnd) {
  // Apache passes a `Transfer-Encoding: chunked` body to a CGI with no CONTENT_LENGTH.
  auto r = read({{"REQUEST_METHOD", "POST"}}, "chunked body", 100);
  EXPECT_EQ(r.body, "chunked body");
  EXPECT_FALSE(r.body_too_large);
  EXPECT_FALSE(r.body_truncated);
  EXPECT_EQ(read({{"REQUEST_METHOD", "POST"}}, std::string(100, 'x'), 100).body.size(), 100u);
}

TEST(CgiServer, ABodyWithoutContentLengthOverTheLimitIsTooLarge) {
  auto r = read({{"REQUEST_METHOD", "POST"}}, std::string(101, 'x'), 100, 7);
  EXPECT_TRUE(r.body_too_large);
  EXPECT_TRUE(r.body.empty());
}

// A source that hands out `size` bytes of 'x' in pieces, counting what was taken.
struct CountingSource {
  uint64_t size;
  uint64_t taken = 0;
  size_t operator()(char* buffer, size_t n) {
    size_t k = static_cast<size_t>(std::min<uint64_t>(n, size - taken));
    std::fill(buffer, buffer + k, 'x');
    taken += k;
    return k;
  }
};

TEST(CgiServer, BodyReaderStopsAtContentLengthAndDiscardsTheRest) {
  CountingSource source{1000};
  BodyReader body(std::ref(source), 600);
  char buffer[256];
  EXPECT_EQ(body.read(buffer, sizeof buffer), 256u);
  EXPECT_EQ(body.read_full(buffer, sizeof buffer), 256u);
  EXPECT_FALSE(body.at_end());
  EXPECT_EQ(body.discard(uint64_t{1} << 30), 88u);  // never past Content-Length
  EXPECT_TRUE(body.at_end());
  EXPECT_FALSE(body.truncated());
  EXPECT_EQ(source.taken, 600u);
  EXPECT_EQ(body.read(buffer, sizeof buffer), 0u);
}

TEST(CgiServer, BodyReaderNotesAnEarlyEndAndBoundsTheDiscard) {
  CountingSource short_source{50};
  BodyReader cut(std::ref(short_source), 600);
  EXPECT_EQ(cut.discard(uint64_t{1} << 30), 50u);
  EXPECT_TRUE(cut.truncated());
  CountingSource endless{uint64_t{1} << 40};
  BodyReader chunked(std::ref(endless), std::nullopt);
  EXPECT_EQ(chunked.discard(5000), 5000u);
  EXPECT_EQ(endless.taken, 5000u);
}

TEST(CgiServer, RendersStatusTypeAndLength) {
  HttpResponse response{413, "text/plain", "too big"};
  EXPECT_EQ(render_http_response(response),
            "Status: 413 Payload Too Large\r\nContent-Type: text/plain\r\nContent-Length: 7\r\n\r\ntoo big");
}

}  // namespace
}  // namespace tharsis
