// Logging with levels and timestamps, one line per message, to stderr (daemons have
// stderr redirected to their log file by tools/start). Thread-safe.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace tharsis {

enum class LogLevel : int { Debug = 0, Info = 1, Warning = 2, Error = 3 };

// Messages below this level are dropped. Default Info; THARSIS_LOG_LEVEL=debug overrides.
void set_log_level(LogLevel level);
LogLevel log_level();
// Parses "debug", "info", "warning", "error"; returns false on anything else.
bool parse_log_level(std::string_view text, LogLevel& out);
// Program name printed on each line (e.g. "transitioner").
void set_log_program(std::string name);

void log_message(LogLevel level, std::string_view message);

namespace detail {
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
}  // namespace detail

template <class... Args>
void log_debug(const Args&... args) {
  if (log_level() <= LogLevel::Debug) log_message(LogLevel::Debug, detail::concat(args...));
}
template <class... Args>
void log_info(const Args&... args) {
  if (log_level() <= LogLevel::Info) log_message(LogLevel::Info, detail::concat(args...));
}
template <class... Args>
void log_warning(const Args&... args) {
  log_message(LogLevel::Warning, detail::concat(args...));
}
template <class... Args>
void log_error(const Args&... args) {
  log_message(LogLevel::Error, detail::concat(args...));
}

}  // namespace tharsis
