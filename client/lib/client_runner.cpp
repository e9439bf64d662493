// Implementation of client/lib/client_runner.h.
#include "client/lib/client_runner.h"

#include <chrono>
#include <iostream>
#include <thread>

#include "client/lib/run_report.h"
#include "lib/log.h"
#include "lib/stop_signal.h"

namespace tharsis {
namespace {

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

int run_hosts(std::vector<std::unique_ptr<HostClient>>& hosts, const RunOptions& options) {
  install_stop_signal_handlers();
  ProjectProgressSource* watch = options.project;
  std::optional<ProjectReading> last;  // the latest reading, shown while the project is away
  auto snapshot = [&](double elapsed, double now) {
    RunSnapshot s;
    s.elapsed_seconds = elapsed;
    s.hosts = static_cast<int>(hosts.size());
    for (const auto& h : hosts) {
      s.client.add(h->counters());
      s.hosts_vanished += h->vanished();
    }
    if (watch) {
      if (auto reading = watch->read(now, true)) last = std::move(reading);
      s.project = last;
    }
    return s;
  };
  int exit_code = 0;
  try {
    double start = wall_now(), next_report = start + 1, next_settle_check = start;
    while (!stop_signalled()) {
      double now = wall_now();
      if (options.max_seconds > 0 && now - start >= options.max_seconds) break;
      bool did = false;
      for (auto& host : hosts) did |= host->step(now);
      if (options.summary && now >= next_report) {
        std::cerr << progress_line(snapshot(now - start, now)) << std::endl;
        next_report = now + 1;
      }
      if (options.until_settled && watch && now >= next_settle_check) {
        auto reading = watch->read(now, false);
        if (reading && reading->settled) break;
        next_settle_check = now + 0.25;
      }
      // Idle only when no host had anything to do: children are polled, not waited for.
      if (!did) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (options.summary) std::cerr << summary_line(snapshot(wall_now() - start, wall_now())) << std::endl;
  } catch (const std::exception& e) {
    log_error("watched project: ", e.what());
    exit_code = 1;
  }
  for (auto& host : hosts) host->shutdown();
  return exit_code;
}

}  // namespace tharsis
