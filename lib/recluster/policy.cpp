// Reclustering policies and the task-conservation checks; see policy.h.
#include "lib/recluster/policy.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tharsis {

std::vector<TaskGroup> cluster_tasks(const std::vector<TaskId>& tasks, int64_t k) {
  std::vector<TaskGroup> jobs;
  const auto m = static_cast<int64_t>(tasks.size());
  if (m == 0) return jobs;
  k = std::max<int64_t>(k, 1);
  const int64_t count = (m + k - 1) / k;
  const int64_t base = m / count, extra = m % count;  // first `extra` jobs get one more
  jobs.reserve(static_cast<size_t>(count));
  auto it = tasks.begin();
  for (int64_t j = 0; j < count; ++j) {
    const int64_t size = base + (j < extra ? 1 : 0);
    jobs.emplace_back(it, it + size);
    it += size;
  }
  return jobs;
}

RetryPlan plan_after_job(ReclusterPolicy policy, const TaskGroup& tasks, const std::vector<bool>& task_ok,
                         int64_t k_model) {
  if (task_ok.size() != tasks.size()) {
    throw std::invalid_argument("plan_after_job expects one success flag per task, found " +
                                std::to_string(task_ok.size()) + " flags for " +
                                std::to_string(tasks.size()) + " tasks");
  }
  RetryPlan plan;
  const bool job_ok = std::all_of(task_ok.begin(), task_ok.end(), [](bool ok) { return ok; });
  if (job_ok) {
    plan.done = tasks;
    return plan;
  }
  switch (policy) {
    case ReclusterPolicy::Noop:
      plan.new_jobs.push_back(tasks);
      break;
    case ReclusterPolicy::DC:
      plan.new_jobs = cluster_tasks(tasks, k_model);
      break;
    case ReclusterPolicy::SR:
    case ReclusterPolicy::DR: {
      TaskGroup failed;
      for (size_t i = 0; i < tasks.size(); ++i) (task_ok[i] ? plan.done : failed).push_back(tasks[i]);
      if (policy == ReclusterPolicy::SR) {
        plan.new_jobs.push_back(std::move(failed));
      } else {
        plan.new_jobs = cluster_tasks(failed, k_model);
      }
      break;
    }
  }
  return plan;
}

Status check_plan(const TaskGroup& tasks, const RetryPlan& plan) {
  std::vector<TaskId> expected = tasks, found = plan.done;
  for (const auto& job : plan.new_jobs) {
    if (job.empty()) return make_error("retry plan contains an empty job");
    found.insert(found.end(), job.begin(), job.end());
  }
  std::sort(expected.begin(), expected.end());
  std::sort(found.begin(), found.end());
  if (expected != found) {
    return make_error("retry plan must keep the job's " + std::to_string(expected.size()) +
                      " tasks exactly once, found " + std::to_string(found.size()) +
                      " task slots that differ");
  }
  return Status::success();
}

TaskLedger::TaskLedger(int64_t n) : place_(static_cast<size_t>(n), Place::Nowhere), nowhere_(n) {}

Status TaskLedger::move(const TaskGroup& job, Place from, Place to, const char* what) {
  for (size_t i = 0; i < job.size(); ++i) {
    const TaskId id = job[i];
    if (id < 0 || id >= static_cast<TaskId>(place_.size()) || place_[static_cast<size_t>(id)] != from) {
      // Undo what this call moved so the ledger stays consistent.
      for (size_t j = 0; j < i; ++j) place_[static_cast<size_t>(job[j])] = from;
      return make_error(std::string(what) + ": task " + std::to_string(id) +
                        " is not where the move expects it");
    }
    place_[static_cast<size_t>(id)] = to;
  }
  const auto count = static_cast<int64_t>(job.size());
  auto counter = [&](Place p) -> int64_t& {
    switch (p) {
      case Place::Nowhere:
        return nowhere_;
      case Place::Pending:
        return pending_;
      case Place::InFlight:
        return in_flight_;
      case Place::Done:
        return done_;
    }
    return nowhere_;
  };
  counter(from) -= count;
  counter(to) += count;
  return Status::success();
}

Status TaskLedger::add_pending(const TaskGroup& job) {
  return move(job, Place::Nowhere, Place::Pending, "add_pending (task already placed or unknown)");
}

Status TaskLedger::start(const TaskGroup& job) {
  return move(job, Place::Pending, Place::InFlight, "start (task not pending)");
}

Status TaskLedger::finish(const TaskGroup& job, const std::vector<TaskId>& done) {
  TaskGroup sorted_job = job;
  std::sort(sorted_job.begin(), sorted_job.end());
  for (TaskId id : done) {
    if (!std::binary_search(sorted_job.begin(), sorted_job.end(), id)) {
      return make_error("finish: done task " + std::to_string(id) + " is not a task of this job");
    }
  }
  Status s = move(job, Place::InFlight, Place::Nowhere, "finish (task not in flight)");
  if (!s.ok()) return s;
  return move(done, Place::Nowhere, Place::Done, "finish (done task not of this job, or done twice)");
}

Status TaskLedger::check() const {
  const auto n = static_cast<int64_t>(place_.size());
  if (nowhere_ != 0 || pending_ + in_flight_ + done_ != n) {
    return make_error("task ledger expects pending + in flight + done == " + std::to_string(n) + ", found " +
                      std::to_string(pending_) + " + " + std::to_string(in_flight_) + " + " +
                      std::to_string(done_) + " with " + std::to_string(nowhere_) + " tasks in no job");
  }
  return Status::success();
}

Status TaskLedger::check_full() const {
  const auto n = static_cast<int64_t>(place_.size());
  int64_t counts[4] = {0, 0, 0, 0};
  for (Place p : place_) ++counts[static_cast<int>(p)];
  if (counts[0] != 0 || counts[1] != pending_ || counts[2] != in_flight_ || counts[3] != done_ ||
      pending_ + in_flight_ + done_ != n) {
    return make_error("task ledger expects pending + in flight + done == " + std::to_string(n) +
                      " with no task lost, found pending=" + std::to_string(counts[1]) +
                      " in_flight=" + std::to_string(counts[2]) + " done=" + std::to_string(counts[3]) +
                      " lost=" + std::to_string(counts[0]));
  }
  return Status::success();
}

}  // namespace tharsis
