// Volunteer hosts simulated through the scheduler's own DB writes (fetch_send_candidates,
// mark_result_sent, mark_result_reported) — no HTTP, no client process. For integration
// tests and bench/ until the tharsis-client simulation mode drives hosts over HTTP.
// Each host holds at most one job: when idle it makes an "RPC" (host.rpc_time = now, so
// it counts as active) and takes the best unsent result; it runs the job's task list with
// the task app's code (client/lib/task_runner.h) and its own seeded HostBehaviour, and
// reports after k·task_seconds: the per-task report uploaded as the output file, or a
// client error on an injected job failure. The caller drives time (step(now)).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "client/lib/host_behaviour.h"
#include "db/database.h"
#include "lib/config/project_config.h"

namespace tharsis {

struct SimulatedHostsConfig {
  int hosts = 4;
  double task_seconds = 1;  // φ̄: compute time of one task
  HostFaults faults;        // the same for every host; each draws from its own seed
  uint64_t seed = 1;
  int delay_bound = 86400;  // report deadline given at send
};

class SimulatedHosts {
 public:
  // Creates one user and `config.hosts` host rows.
  SimulatedHosts(Database& db, const ProjectConfig& project, SimulatedHostsConfig config, int64_t now);

  // At time `now` (seconds): reports every job due by now, then gives each idle host a
  // job. Returns the number of reports and sends made.
  int step(double now);
  // When the next job is due (+inf when no host is busy).
  double next_due() const;
  int busy() const;

  int64_t jobs_reported() const { return jobs_reported_; }
  int64_t jobs_crashed() const { return jobs_crashed_; }
  int64_t tasks_run() const { return tasks_run_; }
  int64_t tasks_failed() const { return tasks_failed_; }

 private:
  struct Host {
    Host(int64_t host_id, HostBehaviour host_behaviour) : id(host_id), behaviour(std::move(host_behaviour)) {}
    int64_t id = 0;
    HostBehaviour behaviour;
    int64_t result_id = 0;  // 0: idle
    double due = 0;
    bool crashed = false;
    std::string report;
    double elapsed = 0;
  };
  bool report(Host& host, int64_t now);
  bool take_job(Host& host, int64_t result_id, int64_t now, double clock);

  Database& db_;
  const ProjectConfig& project_;
  SimulatedHostsConfig config_;
  int64_t user_id_ = 0;
  std::vector<Host> hosts_;
  int64_t jobs_reported_ = 0, jobs_crashed_ = 0, tasks_run_ = 0, tasks_failed_ = 0;
};

}  // namespace tharsis
