// Implementation of lib/daemon/daemon_loop.h.
#include "lib/daemon/daemon_loop.h"

#include <unistd.h>

#include <ctime>
#include <iostream>

#include "db/heartbeat_store.h"
#include "lib/daemon/pid_file.h"
#include "lib/daemon/stop_signal.h"
#include "lib/log.h"

namespace tharsis {
namespace {

std::string host_name() {
  char buffer[256] = {};
  gethostname(buffer, sizeof buffer - 1);
  return buffer;
}

bool should_stop(const ProjectConfig& config) {
  return stop_signalled() || stop_trigger_present(config.project_dir);
}

// Sleeps up to `seconds`, waking early when a stop is requested; returns false then.
bool idle(const ProjectConfig& config, double seconds) {
  for (double slept = 0; slept < seconds; slept += 0.2) {
    if (should_stop(config)) return false;
    if (!interruptible_sleep(std::min(0.2, seconds - slept))) return false;
  }
  return !should_stop(config);
}

}  // namespace

std::string daemon_pid_path(const ProjectConfig& config, const std::string& name, Shard shard) {
  std::string instance = shard.n > 1 ? name + "_" + std::to_string(shard.id) : name;
  return config.pid_dir + "/" + instance + ".pid";
}

int run_daemon(const std::string& name, int argc, const char* const* argv, const DaemonFactory& factory,
               const std::vector<std::string>& extra_options) {
  set_log_program(name);
  // Before anything else, so a SIGTERM during start-up is also a clean stop.
  install_stop_signal_handlers();
  auto options = parse_daemon_options(name, argc, argv, extra_options);
  if (!options.ok()) {
    std::cerr << options.error() << "\n";
    return kDaemonExitUsage;
  }
  if (options->help) {
    std::cout << options->help_text;
    return kDaemonExitOk;
  }
  set_log_level(options->log_level);
  auto config = load_project_config(options->project_dir + "/config.xml");
  if (!config.ok()) {
    log_error(config.error());
    return kDaemonExitUsage;
  }
  auto pid_file = PidFile::acquire(daemon_pid_path(*config, name, options->shard));
  if (!pid_file.ok()) {
    log_error(pid_file.error());
    return kDaemonExitRunning;
  }
  auto work = factory(*config, *options);
  if (!work.ok()) {
    log_error(work.error());
    return kDaemonExitUsage;
  }
  DaemonContext context{*config, *options, options->shard, options->batch};
  HeartbeatRow beat{name, options->shard, host_name(), static_cast<int>(getpid()),
                    static_cast<int64_t>(std::time(nullptr)), 0, 0};
  log_info("starting (shard ", options->shard.id, "/", options->shard.n, ", pid ", beat.pid, ")");

  std::unique_ptr<Database> db;
  int failed_attempts = 0;
  while (!should_stop(*config)) {
    try {
      if (!db) db = Database::open(config->db);
      int64_t now = std::time(nullptr);
      int done = (*work)->do_pass(*db, context, now);
      beat.units_done += done;
      if (done > 0 || now - beat.last_beat >= 1) {
        beat.last_beat = now;
        record_heartbeat(*db, beat);
      }
      if (failed_attempts > 0) log_info("database reachable again");
      failed_attempts = 0;
      if (done == 0) {
        if (options->one_pass) break;
        if (!idle(*config, options->sleep_seconds)) break;
      }
    } catch (const DbError& e) {
      if (e.retryable_conflict()) {
        // A statement outside a transaction lost a lock race; the next pass retries it.
        log_warning("database conflict (", e.what(), "); retrying next pass");
        continue;
      }
      if (!e.connection_lost()) {
        log_error("database error: ", e.what());
        return kDaemonExitFailure;
      }
      db.reset();
      double wait = reconnect_backoff_seconds(++failed_attempts);
      log_warning("database unreachable (", e.what(), "); retrying in ", wait, " s");
      if (!idle(*config, wait)) break;
    } catch (const std::exception& e) {
      log_error("unexpected error: ", e.what());
      return kDaemonExitFailure;
    }
  }
  log_info("stopping cleanly after ", beat.units_done, " units");
  return kDaemonExitOk;
}

}  // namespace tharsis
