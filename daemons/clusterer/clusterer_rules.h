// The clusterer's pure rules (docs/reclustering.md), over plain
// rows: how big a job should be now (the policy's k from the model, with α/β, φ̄ and D
// measured from the app's settled jobs, n tasks left and r active hosts), which jobs to
// form from the waiting tasks, and how a finished job's tasks settle. The transactional
// shells (clusterer_pass, cluster_settle) load the rows and write what these return.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/rows.h"
#include "lib/recluster/estimator.h"
#include "lib/recluster/model.h"
#include "lib/recluster/policy.h"
#include "lib/recluster/task_io.h"

namespace tharsis {

struct SizingInputs {
  ReclusterPolicy policy = ReclusterPolicy::Noop;
  int64_t fixed_k = 1;                // NOOP and SR: <initial_cluster_size>
  int64_t tasks_left = 0;             // n: tasks not done
  int64_t active_hosts = 0;           // r: hosts with an RPC in the last X minutes (0 counts as 1)
  std::vector<ClusterJobRow> window;  // settled jobs, oldest first
  EstimatorConfig estimator;
  double prior_task_time = 5;     // φ̄ before any job has run, seconds
  double prior_job_overhead = 5;  // D before any job has run, seconds
};

struct ClusterSizing {
  int64_t k = 1;                       // the size for new jobs now
  ClusterParams params;                // n, r, φ̄, C = 0 (inside φ̄), D
  FailureEstimates estimates;          // model, α, β, fixed k
  ModelClassification classification;  // the clustering paper's two criteria over the window
  FailureEstimator estimator;          // the window as the estimator holds it
};

// φ̄ = Σ run_time / Σ k over the window's jobs that ran (not job_failed); D = their mean
// (turnaround − run_time), at least 0; the priors when no job ran yet. The model is the
// classifier's verdict; Undecided (one size only, or too little evidence) falls back to
// TFM, the model whose k* reacts to the measured α (failures are seen per task here).
ClusterSizing size_clusters(const SizingInputs& in);

// The estimator's record of a settled job. β is the rate of jobs lost whole (the JFM
// event: crash, no usable result); such a job counts for β only. α is the rate of
// failed tasks among the tasks of jobs that reported task by task.
JobRecord job_record(const ClusterJobRow& job);

// How many new jobs an app may get now: its queue of unsent jobs is kept at `queue_jobs`
// (<cluster_queue_jobs>), or at 2·r when that is 0, so new jobs take the k of the latest
// measurements rather than being formed long before they run; 0 when the queue is full.
int64_t new_job_budget(int64_t queue_jobs, int64_t active_hosts_r, int64_t queued_jobs);

// `retry` was read up to `limit` rows, ordered by (retry_of, id): when it holds `limit`
// rows, the last failed job's tasks may be cut off, so that group is left out (it waits
// for the next pass) — unless it is the only group, which then goes as read.
void drop_cut_retry_group(std::vector<ClusterTaskRow>& retry, size_t limit);

// New jobs from the tasks that failed in earlier jobs, `retry` ordered by (retry_of, id):
// NOOP and SR retry each failed job's tasks as one job (NOOP: all its tasks, SR: the
// failed ones — settle_job decided which came back); DC and DR split each group into jobs
// of k. At most `max_jobs` jobs; tasks left over wait for the next pass.
std::vector<TaskGroup> form_retry_jobs(ReclusterPolicy policy, const std::vector<ClusterTaskRow>& retry,
                                       int64_t k, int64_t max_jobs);

// New jobs of k from never-run tasks (`fresh` by id): the first min(|fresh|, max_jobs·k)
// tasks, split into jobs of k (the last may be smaller).
std::vector<TaskGroup> form_fresh_jobs(const std::vector<ClusterTaskRow>& fresh, int64_t k, int64_t max_jobs);

// How the tasks of a finished job settle. `report` is the parsed canonical output, or
// nullopt when the job produced none (error, unreadable output); a report that does not
// cover exactly `tasks` in order counts the same: a job failure, every task lost. Otherwise the policy
// decides (lib/recluster/policy.h): all ok
// -> all done; NOOP and DC retry every task of a job with a failed task; SR and DR keep
// the ok ones. Outputs of done tasks come from the report.
struct JobSettlement {
  std::vector<TaskId> done;
  std::vector<std::string> outputs;  // outputs[i] for done[i]
  std::vector<TaskId> retry;         // back to WAITING with retry_of = this job
  int failed_tasks = 0;              // tasks reported failed (all k on a job failure)
  bool job_failed = false;
};
JobSettlement settle_job(ReclusterPolicy policy, const std::vector<TaskId>& tasks,
                         const std::optional<std::vector<TaskReport>>& report);

// The failure_stat row for an app at `now` from a sizing.
FailureStatRow failure_stat_row(int64_t appid, int64_t now, ReclusterPolicy policy,
                                const ClusterSizing& sizing);

}  // namespace tharsis
