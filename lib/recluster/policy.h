// The reclustering policies of the fault-tolerant clustering paper (NOOP, DC, SR, DR) as pure functions over
// task ids: how n tasks are first clustered into jobs, and, when a job ends with per-task success flags,
// which tasks are done and how the rest are regrouped into new jobs. Rule: no task is ever dropped or
// duplicated; check_plan and TaskLedger verify it.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/recluster/model.h"
#include "lib/result.h"

namespace tharsis {

using TaskId = int64_t;
using TaskGroup = std::vector<TaskId>;  // the tasks of one job

// Splits tasks, in order, into ceil(m/k) jobs whose sizes differ by at most one (so no
// job is left with a small remainder). k < 1 is treated as 1; no tasks gives no jobs.
std::vector<TaskGroup> cluster_tasks(const std::vector<TaskId>& tasks, int64_t k);

// What happens after a job ends.
struct RetryPlan {
  std::vector<TaskId> done;         // tasks finished for good (counted exactly once)
  std::vector<TaskGroup> new_jobs;  // tasks going back to the pool, regrouped
};

// The paper's policies after a job of `tasks` ended with success flags `task_ok`
// (task_ok[i] for tasks[i]); k_model is the size choose_cluster_size gave this policy.
//  NOOP: job succeeded (all ok) -> all done; else the whole job is retried as it was.
//  DC:   job succeeded -> all done; else all its tasks (DC cannot tell which failed) are
//        re-split into jobs of k_model.
//  SR:   ok tasks are done; the failed ones form one new job (the size shrinks naturally).
//  DR:   ok tasks are done; the failed ones are split into jobs of k_model.
// Throws std::invalid_argument if task_ok and tasks differ in length.
RetryPlan plan_after_job(ReclusterPolicy policy, const TaskGroup& tasks, const std::vector<bool>& task_ok,
                         int64_t k_model);

// The plan keeps the job's tasks: done ∪ new_jobs is exactly `tasks` as a multiset.
Status check_plan(const TaskGroup& tasks, const RetryPlan& plan);

// Where each task of 0..n-1 is: pending (in a job not yet started), in flight, or done.
// Every move goes through it, and it refuses a move from the wrong place, so a task can
// be neither dropped nor run twice at once nor finished twice.
class TaskLedger {
 public:
  explicit TaskLedger(int64_t n);

  Status add_pending(const TaskGroup& job);  // new job for tasks that are nowhere yet
  Status start(const TaskGroup& job);        // pending -> in flight
  // The job's tasks leave flight: `done` become done, the rest must be re-added
  // (add_pending) by the caller before the ledger is checked.
  Status finish(const TaskGroup& job, const std::vector<TaskId>& done);

  int64_t pending() const { return pending_; }
  int64_t in_flight() const { return in_flight_; }
  int64_t done() const { return done_; }
  // pending + in flight + done == n (O(1): the moves already refuse a task in the wrong
  // place, so the counters are exact).
  Status check() const;
  // The same, recounted from every task's place (O(n)).
  Status check_full() const;

 private:
  enum class Place : unsigned char { Nowhere, Pending, InFlight, Done };
  Status move(const TaskGroup& job, Place from, Place to, const char* what);

  std::vector<Place> place_;
  int64_t pending_ = 0, in_flight_ = 0, done_ = 0, nowhere_;
};

}  // namespace tharsis
