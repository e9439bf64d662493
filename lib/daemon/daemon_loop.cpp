// Implementation of lib/daemon/daemon_loop.h.
#include "lib/daemon/daemon_loop.h"

#include <unistd.h>

#include <atomic>
#include <ctime>
#include <iostream>
#include <thread>

#include "db/heartbeat_store.h"
#include "db/schema_migrations.h"
#include "lib/daemon/pid_file.h"
#include "lib/log.h"
#include "lib/stop_signal.h"

namespace tharsis {
namespace {

std::string host_name() {
  char buffer[256] = {};
  gethostname(buffer, sizeof buffer - 1);
  return buffer;
}

// What the workers of one process share: the units they did (the heartbeat's count), and
// the exit code of the first that failed, which stops the others before their next pass.
struct SharedProgress {
  std::atomic<int64_t> units_done{0};
  std::atomic<int> failure{kDaemonExitOk};
};

bool should_stop(const ProjectConfig& config, const SharedProgress& shared) {
  return stop_signalled() || stop_trigger_present(config.project_dir) ||
         shared.failure.load() != kDaemonExitOk;
}

// Sleeps up to `seconds`, waking early when a stop is requested; returns false then.
bool idle(const ProjectConfig& config, const SharedProgress& shared, double seconds) {
  for (double slept = 0; slept < seconds; slept += 0.2) {
    if (should_stop(config, shared)) return false;
    if (!interruptible_sleep(std::min(0.2, seconds - slept))) return false;
  }
  return !should_stop(config, shared);
}

// Worker t of `threads` owns the rows of the process's shard with id % (n * threads) ==
// id + n * t: together exactly the shard's rows, and no row in two workers.
Shard worker_shard(Shard process, int t, int threads) {
  return Shard{process.n * threads, process.id + process.n * t};
}

// One worker: its own connection (`db`, kept by the caller for the last heartbeat), pass
// after pass over its rows until stopped, idle with --one_pass, or failed. Worker 0
// records the process's heartbeat. Returns a kDaemonExit* code.
int run_worker(const ProjectConfig& config, const DaemonOptions& options, DaemonWork& work, int t,
               HeartbeatRow& beat, SharedProgress& shared, std::unique_ptr<Database>& db) {
  DaemonContext context{config, options, worker_shard(options.shard, t, options.threads), options.batch};
  int failed_attempts = 0;
  bool beat_recorded = false;
  // Drops the connection and waits before the next attempt; false when told to stop.
  auto back_off = [&](const DbError& e) {
    db.reset();
    double wait = reconnect_backoff_seconds(++failed_attempts);
    log_warning("database unreachable (", e.what(), "); retrying in ", wait, " s");
    return idle(config, shared, wait);
  };
  while (!should_stop(config, shared)) {
    try {
      if (!db) {
        try {
          db = Database::open(config.db);
        } catch (const DbError& e) {
          // Any failure to connect is waited out, not only a dead socket: a server starting
          // up or shutting down refuses with other codes, and exiting would only have cron
          // restart us into the same wait.
          if (!back_off(e)) break;
          continue;
        }
        // A daemon of this build must not write a database of an older schema: it could
        // miss a table or index this build relies on (tools/upgrade_db upgrades it).
        if (std::string problem = schema_version_problem(*db, config.project_dir); !problem.empty()) {
          log_error("refusing to run: ", problem);
          return kDaemonExitUsage;
        }
      }
      int64_t now = std::time(nullptr);
      int done = work.do_pass(*db, context, now);
      int64_t total = shared.units_done += done;
      if (t == 0 && (!beat_recorded || now - beat.last_beat >= kHeartbeatIntervalSeconds)) {
        beat.last_beat = now;
        beat.units_done = total;
        record_heartbeat(*db, beat);
        beat_recorded = true;
      }
      if (failed_attempts > 0) log_info("database reachable again");
      failed_attempts = 0;
      if (done == 0) {
        if (options.one_pass) break;
        if (!idle(config, shared, options.sleep_seconds)) break;
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
      if (!back_off(e)) break;
    } catch (const std::exception& e) {
      log_error("unexpected error: ", e.what());
      return kDaemonExitFailure;
    }
  }
  return kDaemonExitOk;
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
  if (options->db_node != 0) {
    if (Status node = select_db_node(*config, options->db_node); !node.ok()) {
      log_error("--db_node: ", node.error());
      return kDaemonExitUsage;
    }
  }
  auto pid_file = PidFile::acquire(daemon_pid_path(*config, name, options->shard));
  if (!pid_file.ok()) {
    log_error(pid_file.error());
    return kDaemonExitRunning;
  }
  if ((*pid_file)->replaced_stale_pid() != 0) {
    log_warning("replaced stale pid file ", (*pid_file)->path(), " (pid ", (*pid_file)->replaced_stale_pid(),
                " no longer runs)");
  }
  // One DaemonWork per worker: a pass keeps caches and cursors that are its own.
  std::vector<std::unique_ptr<DaemonWork>> works;
  for (int t = 0; t < options->threads; ++t) {
    auto work = factory(*config, *options);
    if (!work.ok()) {
      log_error(work.error());
      return kDaemonExitUsage;
    }
    works.push_back(std::move(*work));
  }
  HeartbeatRow beat{name,
                    options->shard,
                    host_name(),
                    static_cast<int>(getpid()),
                    static_cast<int64_t>(std::time(nullptr)),
                    0,
                    0};
  log_info("starting (shard ", options->shard.id, "/", options->shard.n, ", ", options->threads,
           " thread(s), pid ", beat.pid, ")");

  SharedProgress shared;
  std::vector<std::unique_ptr<Database>> connections(works.size());
  auto work_as = [&](int t) {
    int code = run_worker(*config, *options, *works[t], t, beat, shared, connections[t]);
    int none = kDaemonExitOk;
    if (code != kDaemonExitOk) shared.failure.compare_exchange_strong(none, code);
  };
  std::vector<std::thread> others;
  for (int t = 1; t < options->threads; ++t) others.emplace_back(work_as, t);
  work_as(0);
  for (auto& other : others) other.join();
  if (int failure = shared.failure.load(); failure != kDaemonExitOk) return failure;
  // A last heartbeat, so the row shows the final count (status pages, shard tests); best
  // effort: stopping must not wait for a database that is gone.
  beat.units_done = shared.units_done.load();
  for (auto& db : connections) {
    if (!db) continue;
    try {
      beat.last_beat = std::time(nullptr);
      record_heartbeat(*db, beat);
    } catch (const DbError& e) {
      log_warning("last heartbeat not recorded: ", e.what());
    }
    break;
  }
  log_info("stopping cleanly after ", beat.units_done, " units");
  return kDaemonExitOk;
}

}  // namespace tharsis
