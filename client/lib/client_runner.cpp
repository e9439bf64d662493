// Implementation of client/lib/client_runner.h.
#include "client/lib/client_runner.h"

#include <chrono>
#include <iostream>
#include <thread>

#include "client/lib/run_report.h"
#include "db/database.h"
#include "lib/daemon/stop_signal.h"
#include "lib/log.h"

namespace tharsis {
namespace {

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

int run_hosts(std::vector<std::unique_ptr<HostClient>>& hosts, const RunOptions& options) {
  install_stop_signal_handlers();
  std::unique_ptr<Database> db;
  auto snapshot = [&](double elapsed) {
    RunSnapshot s;
    s.elapsed_seconds = elapsed;
    s.hosts = static_cast<int>(hosts.size());
    for (const auto& h : hosts) {
      s.client.add(h->counters());
      s.hosts_vanished += h->vanished();
    }
    if (db) {
      s.workunits = workunit_progress(*db);
      s.results_by_state = results_by_state(*db);
    }
    return s;
  };
  int exit_code = 0;
  try {
    if (options.watched_project) db = Database::open(options.watched_project->db);
    double start = wall_now(), next_report = start + 1, next_settle_check = start;
    while (!stop_signalled()) {
      double now = wall_now();
      if (options.max_seconds > 0 && now - start >= options.max_seconds) break;
      bool did = false;
      for (auto& host : hosts) did |= host->step(now);
      if (options.summary && now >= next_report) {
        std::cerr << progress_line(snapshot(now - start)) << std::endl;
        next_report = now + 1;
      }
      if (options.until_settled && db && now >= next_settle_check) {
        if (workunit_progress(*db).settled()) break;
        next_settle_check = now + 0.25;
      }
      // Idle only when no host had anything to do: children are polled, not waited for.
      if (!did) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (options.summary) std::cerr << summary_line(snapshot(wall_now() - start)) << std::endl;
  } catch (const std::exception& e) {
    log_error("watched project database: ", e.what());
    exit_code = 1;
  }
  for (auto& host : hosts) host->shutdown();
  return exit_code;
}

}  // namespace tharsis
