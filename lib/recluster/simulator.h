// Discrete-event simulator of one level of n independent tasks clustered into jobs on r
// resources with transient failures (seed: "Experiments and Discussion"). Jobs wait in a
// FIFO queue; a free resource takes the next one; a job of k tasks runs D + k(φ̄+C)
// seconds (times a uniform jitter factor); failures are drawn i.i.d. per task (TFM, α) or
// per job (JFM, β) and are seen only when the job ends. The policy then decides which
// tasks are done and how the rest return to the queue (at its back). Seeded: the same
// config gives the same result.
#pragma once

#include <cstdint>

#include "lib/recluster/estimator.h"
#include "lib/recluster/model.h"

namespace tharsis {

struct SimConfig {
  ClusterParams params{1000, 20, 5.0, 0.0, 5.0};
  FailureModel model = FailureModel::Task;  // how failures really happen
  double rate = 0.0;                        // α under TFM, β under JFM
  ReclusterPolicy policy = ReclusterPolicy::Noop;
  // Size NOOP and SR keep. 0 = the failure-blind planner's choice, round(n/r) (the JFM
  // optimum, also the no-failure optimum: one job per resource in one cycle).
  int64_t fixed_k = 0;
  double jitter = 0.0;        // job run time × U[1 − jitter, 1 + jitter]
  EstimatorConfig estimator;  // what DC and DR learn α and β with
  uint64_t seed = 1;
  int64_t max_jobs = 20'000'000;  // give up (finished = false) after this many jobs
  bool check_invariants = true;   // ledger check after every job (cheap: O(n) per job)
};

struct SimResult {
  bool finished = false;  // every task done (false: max_jobs reached)
  double makespan = 0.0;  // time the last task was done (seconds)
  int64_t jobs_run = 0;
  int64_t task_runs = 0;  // task executions, retries included
  int64_t failed_jobs = 0;
  int64_t initial_k = 0;        // the size of the first clustering
  double alpha_estimate = 0.0;  // the estimator's α at the end
  double beta_estimate = 0.0;
};

// Runs one simulation. DC and DR assume the failure model config.model (the classifier
// in model.h tells it in a live system) and pick k from the estimator at each decision
// with n = tasks not yet done. Throws std::logic_error if a task is ever dropped or
// duplicated (the ledger check) and std::invalid_argument on a bad config.
SimResult simulate(const SimConfig& config);

// The failure-blind size: round(n/r), at least 1.
int64_t failure_blind_k(const ClusterParams& params);

}  // namespace tharsis
