// How a simulated volunteer host misbehaves (issue 4's simulation mode): each virtual
// host draws its faults from its own seeded generator, so a run is reproducible.
//   task failure  — one task of a job fails (the job reports that task's error);
//   job failure   — the whole job crashes (every task fails; exit status non-zero);
//   garbage       — the job "succeeds" but its output is wrong (the validator must catch it);
//   vanish        — the host stops contacting the server for good after a given time;
//   slow          — compute time multiplied by a factor (deadline pressure).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tharsis {

struct HostFaults {
  double task_failure_rate = 0;      // α: per task
  double job_failure_rate = 0;       // β: per job
  double garbage_rate = 0;           // per job
  double vanish_after_seconds = -1;  // < 0: never
  double slowness = 1;               // >= 1
};

enum class JobFate { Success, JobFailure, Garbage };

// Who injects a simulated host's task, job and garbage faults (vanishing and slowness
// are always the client's):
//   Client — the client: a task failure SIGKILLs one run of the task process (the restart
//            recovers it), a job failure kills every run (a client error after the
//            restart limit), garbage is written over the output. For single-task apps.
//   App    — the app: the client passes the rates, a per-run seed and the simulated task
//            time to the task process's environment (client/lib/task_runner.h) and
//            injects none of them itself. For apps that report per task (task_app).
enum class FaultInjection { Client, App };

class HostBehaviour {
 public:
  HostBehaviour(HostFaults faults, uint64_t seed) : faults_(faults), random_(seed) {}

  // Decides the fate of a job of `tasks` tasks; `failed_tasks` gets the number of tasks
  // that failed on their own (task failures), all of them on a job failure.
  JobFate run_job(int tasks, int& failed_tasks);
  // The same draw, telling which tasks failed (task_failed[i] for the i-th task).
  JobFate run_tasks(int tasks, std::vector<bool>& task_failed);
  // Whether one task, run alone, fails.
  bool task_fails();
  bool vanished(double seconds_since_start) const {
    return faults_.vanish_after_seconds >= 0 && seconds_since_start >= faults_.vanish_after_seconds;
  }
  double compute_seconds(double nominal) const { return nominal * faults_.slowness; }
  const HostFaults& faults() const { return faults_; }

 private:
  bool chance(double p) { return p > 0 && std::uniform_real_distribution<double>(0, 1)(random_) < p; }

  HostFaults faults_;
  std::mt19937_64 random_;
};

}  // namespace tharsis
