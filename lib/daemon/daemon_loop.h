// The loop every back-end daemon runs (docs/admin.md): load config.xml, take the pid file,
// connect, then pass after pass: do_pass (each unit of work one transaction, inside the
// daemon), heartbeat (at most once a second, and once more on exit), sleep when idle;
// stop cleanly between passes on SIGTERM/SIGINT or the stop trigger; on a lost database,
// log once per attempt and retry with back-off (1 s .. 30 s) without exiting. On connecting,
// a database whose schema version is older than this build's makes it exit (code 2).
// With --threads N the process runs N such loops at once, each with its own connection,
// its own DaemonWork (the factory is called N times) and its own part of the shard's rows
// (worker t: id % (mod * N) == mod_id + mod * t), so no row is in two workers and a
// transaction of one waits on another's only through rows they share (a host's credit,
// say), which the batch's own retry handles; worker 0 writes the heartbeat (the units of
// all); the first worker to fail stops the others and gives the exit code.
// A daemon's main.cpp is a call to run_daemon.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/daemon/daemon_options.h"
#include "lib/stop_signal.h"

namespace tharsis {

struct DaemonContext {
  const ProjectConfig& config;
  const DaemonOptions& options;
  Shard shard;
  int batch;

  // For passes with slow units: check between units and return early when true. The
  // loop itself checks between passes, so a pass of quick units need not.
  bool stop_requested() const { return stop_signalled() || stop_trigger_present(config.project_dir); }
};

class DaemonWork {
 public:
  virtual ~DaemonWork() = default;
  // One pass over due work at time `now`; returns the number of units processed (0: idle).
  virtual int do_pass(Database& db, const DaemonContext& context, int64_t now) = 0;
};

using DaemonFactory =
    std::function<Result<std::unique_ptr<DaemonWork>>(const ProjectConfig&, const DaemonOptions&)>;

// Exit codes of run_daemon (and so of every daemon program).
inline constexpr int kDaemonExitOk = 0;       // clean stop (signal, trigger, --one_pass done) or --help
inline constexpr int kDaemonExitFailure = 1;  // unexpected error, logged (cron restarts it)
inline constexpr int kDaemonExitUsage = 2;    // bad options, config.xml, or the factory refused; or
                                              // the database's schema is older than this build's
                                              // (db/schema_migrations.h: run upgrade_db)
inline constexpr int kDaemonExitRunning = 3;  // another instance of this shard holds the pid file

// The heartbeat row is written at most this often (and once more at a clean exit).
inline constexpr int64_t kHeartbeatIntervalSeconds = 1;

// `extra_options`: daemon-specific option names (each takes a value; see daemon_options.h).
int run_daemon(const std::string& name, int argc, const char* const* argv, const DaemonFactory& factory,
               const std::vector<std::string>& extra_options = {});

// Pid file path for a daemon instance: <pid_dir>/<name>[_<mod_id> when --mod > 1].pid,
// the same name tools/start looks for.
std::string daemon_pid_path(const ProjectConfig& config, const std::string& name, Shard shard);

}  // namespace tharsis
