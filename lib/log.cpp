// Implementation of lib/log.h: a mutex around one formatted write per line.
#include "lib/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>

namespace tharsis {
namespace {

std::atomic<int> g_level{[] {
  LogLevel level = LogLevel::Info;
  if (const char* env = std::getenv("THARSIS_LOG_LEVEL")) parse_log_level(env, level);
  return static_cast<int>(level);
}()};
std::mutex g_mutex;
std::string g_program = "tharsis";

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "DEBUG";
    case LogLevel::Info:
      return "INFO";
    case LogLevel::Warning:
      return "WARN";
    case LogLevel::Error:
      return "ERROR";
  }
  return "?";
}

}  // namespace

void set_log_level(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }

bool parse_log_level(std::string_view text, LogLevel& out) {
  if (text == "debug")
    out = LogLevel::Debug;
  else if (text == "info")
    out = LogLevel::Info;
  else if (text == "warning" || text == "warn")
    out = LogLevel::Warning;
  else if (text == "error")
    out = LogLevel::Error;
  else
    return false;
  return true;
}

void set_log_program(std::string name) {
  std::lock_guard lock(g_mutex);
  g_program = std::move(name);
}

void log_message(LogLevel level, std::string_view message) {
  if (static_cast<int>(level) < g_level.load()) return;
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &utc);
  std::lock_guard lock(g_mutex);
  std::fprintf(stderr, "%s.%03d [%s %d] %s %.*s\n", stamp, static_cast<int>(millis.count()),
               g_program.c_str(), static_cast<int>(getpid()), level_name(level),
               static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
}

}  // namespace tharsis
