// The FastCGI pool's command line (sched/lib/fastcgi_pool.h) and its worker restart delay.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "sched/lib/fastcgi_pool.h"

namespace tharsis::fastcgi_pool_options_test {
namespace {

Result<std::optional<FastCgiPoolOptions>> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "scheduler");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return fastcgi_pool_from_args(static_cast<int>(args.size()), argv.data());
}

TEST(FastCgiPoolOptions, NoArgumentsMeansCgiOrModFcgid) {
  auto none = parse({});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(FastCgiPoolOptions, SocketAndProcesses) {
  auto pool = parse({"--fastcgi_socket", "/srv/p/run/s.sock", "--processes", "12"});
  ASSERT_TRUE(pool.ok()) << pool.error();
  ASSERT_TRUE(pool->has_value());
  EXPECT_EQ((*pool)->socket_path, "/srv/p/run/s.sock");
  EXPECT_EQ((*pool)->processes, 12);
  auto defaulted = parse({"--fastcgi_socket", "s.sock"});
  ASSERT_TRUE(defaulted.ok());
  EXPECT_EQ((*defaulted)->processes, FastCgiPoolOptions{}.processes);
}

TEST(FastCgiPoolOptions, BadOptionsAreErrorsNamingTheProblem) {
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--fastcgi_socket"}, "needs a value"},
           {{"--fastcgi_socket", "s", "--processes", "0"}, "--processes"},
           {{"--fastcgi_socket", "s", "--processes", "257"}, "--processes"},
           {{"--fastcgi_socket", "s", "--processes", "4x"}, "4x"},
           {{"--processes", "4"}, "--processes needs --fastcgi_socket"},
           {{"--fastcgi_socket", std::string(200, 'a')}, "socket path"},
           {{"--port", "80"}, "unknown option --port"},
       }) {
    auto parsed = parse(args);
    ASSERT_FALSE(parsed.ok()) << says;
    EXPECT_NE(parsed.error().find(says), std::string::npos) << parsed.error();
  }
}

// Apache passes a CGI's query string as its arguments when it has no '=': a request must
// never be able to turn a CGI scheduler into a pool listening where the query says.
TEST(FastCgiPoolOptions, NeverTakenByAProcessStartedAsCgi) {
  ::setenv("GATEWAY_INTERFACE", "CGI/1.1", 1);
  auto parsed = parse({"--fastcgi_socket", "/tmp/attacker.sock", "--processes", "200"});
  ::unsetenv("GATEWAY_INTERFACE");
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->has_value());
}

TEST(FastCgiPoolOptions, RestartDelayGrowsOnlyWhileWorkersDieYoung) {
  EXPECT_EQ(worker_restart_delay(3600, 8), 0);  // a long life: at once
  double delay = 0;
  std::vector<double> seen;
  for (int i = 0; i < 9; ++i) seen.push_back(delay = worker_restart_delay(0.1, delay));
  EXPECT_EQ(seen.front(), 0.5);
  EXPECT_EQ(seen[1], 1.0);
  EXPECT_EQ(seen.back(), 30);  // capped
  EXPECT_EQ(worker_restart_delay(60, seen.back()), 0);
}

}  // namespace
}  // namespace tharsis::fastcgi_pool_options_test
