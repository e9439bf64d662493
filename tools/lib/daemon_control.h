// Starting and stopping a project's daemons, BOINC's way: the daemons listed in
// config.xml's <daemons> run from the project's bin/, each writing its own pid file
// pid/<program>[_<mod_id>].pid; `stop` drops the trigger file `stop_daemons` in the
// project dir (each daemon checks it every pass and exits cleanly), waits, and only then
// signals stragglers; `start` removes the trigger and launches every daemon not running,
// so `start --cron` from a crontab line restarts any that died.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "lib/config/project_config.h"
#include "lib/result.h"

namespace tharsis {

// One <daemon><cmd> split into program and arguments (whitespace-separated, no quoting:
// BOINC's config has none either).
struct DaemonCommand {
  std::string program;            // e.g. "transitioner"
  std::vector<std::string> args;  // e.g. {"--sleep", "5", "--mod", "2", "--mod_id", "0"}
  std::string instance;           // program, plus "_<mod_id>" when sharded (--mod > 1)
};

Result<DaemonCommand> parse_daemon_command(const std::string& cmd);

// pid/<instance>.pid under the project's pid_dir.
std::string daemon_pid_file(const ProjectConfig& config, const DaemonCommand& command);

// log/<instance>.log under the project's log_dir (the daemon's stdout and stderr).
std::string daemon_log_file(const ProjectConfig& config, const DaemonCommand& command);

// The last non-empty line of the log at `path`, from its last 4 KiB only (at most 400
// characters: its end); "" when there is none.
std::string last_log_line(const std::string& path);

// The pid in `pid_file` when that process is alive, else 0 (missing, unreadable or stale).
pid_t running_pid(const std::string& pid_file);

// Path of the stop trigger file: <project_dir>/stop_daemons.
std::string stop_trigger_path(const ProjectConfig& config);

struct DaemonStatus {
  DaemonCommand command;
  bool disabled = false;
  pid_t pid = 0;  // 0 when not running
};
std::vector<DaemonStatus> daemon_statuses(const ProjectConfig& config);

// How long start watches the daemons it launched: one that exits before it has written its
// pid file (bad options, a config it cannot read, a program that cannot run) has failed;
// one still running then, or whose pid file names it, has started.
inline constexpr double kStartWatchSeconds = 3.0;

struct StartFailure {
  std::string instance;
  std::string log_file;
  std::string last_log_line;  // why, as the daemon (or start's child) wrote it; "" if nothing
};
struct StartOutcome {
  std::vector<std::string> started;  // instances launched and running
  std::vector<StartFailure> failed;  // instances launched that exited at once
};

// Removes the stop trigger and launches each enabled daemon that is not running, from
// <project_dir>/bin/<program>, in the project dir, stdout+stderr appended to
// log/<instance>.log, detached in its own session; then watches them for up to
// kStartWatchSeconds. An error: a daemon entry that cannot be launched at all.
Result<StartOutcome> start_daemons(const ProjectConfig& config);

// Creates the stop trigger, waits up to `grace_seconds` for every running daemon to exit,
// then sends SIGTERM, and SIGKILL after a further `grace_seconds`. Returns the instances
// that had to be signalled (empty when all stopped by themselves).
Result<std::vector<std::string>> stop_daemons(const ProjectConfig& config, double grace_seconds);

}  // namespace tharsis
