// CGI request reading with limits, and response rendering.
#include "sched/lib/cgi_server.h"

#include <gtest/gtest.h>

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

TEST(CgiServer, RendersStatusTypeAndLength) {
  HttpResponse response{413, "text/plain", "too big"};
  EXPECT_EQ(render_http_response(response),
            "Status: 413 Payload Too Large\r\nContent-Type: text/plain\r\nContent-Length: 7\r\n\r\ntoo big");
}

}  // namespace
}  // namespace tharsis
