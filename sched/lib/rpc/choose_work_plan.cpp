// Implementation of sched/lib/rpc/choose_work_plan.h.
#include "sched/lib/rpc/choose_work_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tharsis {

double requested_seconds(const SchedulerRequest& req) {
  return std::max(req.work_req_seconds, req.cpu_req_secs);
}

bool asks_for_work(const SchedulerRequest& req) { return !req.dont_send_work && requested_seconds(req) > 0; }

HostForScheduling scheduling_view(const HostRow& host, const std::vector<std::string>& platforms,
                                  double request_seconds, const std::vector<HostResultRow>& in_progress,
                                  const std::vector<HeldFile>& held_files) {
  HostForScheduling view;
  view.id = host.id;
  view.platforms.insert(platforms.begin(), platforms.end());
  view.memory_bytes = host.m_nbytes;
  view.disk_free_bytes = host.d_free;
  view.flops = host.p_fpops > 0 ? host.p_fpops : 1e9;
  view.ncpus = std::max(1, host.p_ncpus);
  view.work_request_seconds = request_seconds;
  view.results_sent_today = host.nresults_today;
  view.daily_quota = host.max_results_day;
  for (const auto& r : in_progress) view.workunits_held.insert(r.workunit_id);
  for (const auto& f : held_files) view.files_held.insert(f.name);
  return view;
}

SendFilter send_filter(const HostForScheduling& view, std::vector<int64_t> apps_not_runnable, int64_t now) {
  SendFilter filter;
  filter.host_id = view.id;
  filter.apps_not_runnable = std::move(apps_not_runnable);
  filter.memory_bytes = view.memory_bytes;
  filter.disk_free_bytes = view.disk_free_bytes;
  filter.flops = view.flops;
  filter.now = now;
  return filter;
}

CandidateResult candidate_of(const SendCandidateRow& row, const std::string& platform) {
  CandidateResult c;
  c.result_id = row.result_id;
  c.workunit_id = row.workunit_id;
  c.platform = platform;
  c.rsc_memory_bound = row.rsc_memory_bound;
  c.rsc_disk_bound = row.rsc_disk_bound;
  c.rsc_fpops_est = row.rsc_fpops_est;
  c.delay_bound = row.delay_bound;
  c.priority = row.priority;
  c.preferred_host = row.preferred_host;
  c.preferred_until = row.preferred_until;
  return c;
}

std::vector<CandidateResult> claim_order(std::vector<CandidateResult> chosen) {
  std::sort(chosen.begin(), chosen.end(),
            [](const CandidateResult& a, const CandidateResult& b) { return a.workunit_id < b.workunit_id; });
  return chosen;
}

std::vector<int64_t> settle_round(const std::vector<CandidateResult>& chosen, const std::set<int64_t>& won,
                                  const std::set<int64_t>& had, HostForScheduling& view,
                                  SelectionLimits& limits, std::set<int64_t>& gone) {
  std::vector<int64_t> sent;
  for (const auto& c : chosen) {
    gone.insert(c.result_id);
    if (had.count(c.workunit_id)) view.workunits_held.insert(c.workunit_id);  // choose again
    if (!won.count(c.result_id)) continue;  // another scheduler process sent it first, or had
    // What this send covers no longer needs covering in a later round.
    view.workunits_held.insert(c.workunit_id);
    view.work_request_seconds -= estimated_runtime(view, c) / view.ncpus;
    view.disk_free_bytes -= c.rsc_disk_bound;
    view.results_sent_today += 1;
    limits.max_results_per_reply -= 1;
    sent.push_back(c.result_id);
  }
  return sent;
}

NextRound next_round(const HostForScheduling& view, const SelectionLimits& limits, const Selection& selection,
                     size_t won, size_t candidates_read, int window) {
  if (view.work_request_seconds <= 0 || limits.max_results_per_reply <= 0 || selection.quota_reached) {
    return {true, window};
  }
  bool lost_any = won < selection.chosen.size();
  if (lost_any) return {false, window};
  bool window_full = candidates_read == static_cast<size_t>(window);
  if (window == kCandidatesPerRequest || !window_full) return {true, window};
  return {false, window < kFirstCandidates ? kFirstCandidates : kCandidatesPerRequest};
}

double head_job_fpops(const std::vector<CandidateResult>& candidates) {
  if (candidates.empty()) return 0;
  std::vector<double> sizes;
  for (const auto& c : candidates) sizes.push_back(c.rsc_fpops_est);
  auto middle = sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2);
  std::nth_element(sizes.begin(), middle, sizes.end());
  return *middle;
}

int first_window(const HostForScheduling& view, const SelectionLimits& limits, double head_job_fpops) {
  if (!(head_job_fpops > 0)) return kFirstCandidates;
  // choose_work counts a job as its run time spread over the host's CPUs.
  double seconds_per_job = head_job_fpops / (view.flops > 0 ? view.flops : 1e9) / std::max(1, view.ncpus);
  double jobs = std::ceil(std::max(view.work_request_seconds, 0.0) / seconds_per_job);
  jobs = std::min({std::max(jobs, 1.0), static_cast<double>(std::max(limits.max_results_per_reply, 1)),
                   static_cast<double>(kFirstCandidates)});
  return std::clamp(2 * static_cast<int>(jobs), kFewestFirstCandidates, kFirstCandidates);
}

SendFilter apps_only_filter(int64_t host_id, const std::vector<int64_t>& apps_not_runnable) {
  SendFilter by_app_only;
  by_app_only.host_id = host_id;
  by_app_only.apps_not_runnable = apps_not_runnable;
  // Large, yet far from overflowing the query's flops × delay_bound (MariaDB's error).
  by_app_only.disk_free_bytes = by_app_only.flops = 1e300;
  by_app_only.now = std::numeric_limits<int64_t>::max();
  return by_app_only;
}

ReplyMessage no_work_message(bool quota_reached, bool only_unrunnable_work,
                             const std::string& platform_name) {
  if (quota_reached) return {MessagePriority::Low, "This computer has reached its daily task limit"};
  if (only_unrunnable_work) {
    return {MessagePriority::Notice, "No application is available for your platform " + platform_name};
  }
  return {MessagePriority::Low, "No tasks are available"};
}

}  // namespace tharsis
