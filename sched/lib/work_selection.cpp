// Implementation of sched/lib/work_selection.h.
#include "sched/lib/work_selection.h"

#include <algorithm>

namespace tharsis {
namespace {

int held_inputs(const HostForScheduling& host, const CandidateResult& candidate) {
  int n = 0;
  for (const auto& file : candidate.input_files) n += host.files_held.count(file) > 0;
  return n;
}

bool reserved_for(const CandidateResult& candidate, int64_t host_id, int64_t now) {
  return candidate.preferred_host == host_id && now < candidate.preferred_until;
}

}  // namespace

double estimated_runtime(const HostForScheduling& host, const CandidateResult& candidate) {
  double flops = host.flops > 0 ? host.flops : 1e9;
  return candidate.rsc_fpops_est / flops;
}

SkipReason check_candidate(const HostForScheduling& host, const CandidateResult& candidate, int64_t now) {
  if (host.workunits_held.count(candidate.workunit_id)) return SkipReason::SameWorkunit;
  if (!host.platforms.count(candidate.platform)) return SkipReason::Platform;
  if (candidate.rsc_memory_bound > 0 && host.memory_bytes > 0 &&
      candidate.rsc_memory_bound > host.memory_bytes) {
    return SkipReason::Memory;
  }
  if (candidate.rsc_disk_bound > 0 && candidate.rsc_disk_bound > host.disk_free_bytes) {
    return SkipReason::Disk;
  }
  // A result the host cannot finish before its deadline would only time out.
  if (candidate.delay_bound > 0 && estimated_runtime(host, candidate) > candidate.delay_bound) {
    return SkipReason::Deadline;
  }
  if (candidate.preferred_host != 0 && candidate.preferred_host != host.id &&
      now < candidate.preferred_until) {
    return SkipReason::ReservedForOtherHost;
  }
  return SkipReason::None;
}

Selection choose_work(const HostForScheduling& host, std::vector<CandidateResult> candidates,
                      const SelectionLimits& limits, int64_t now) {
  Selection selection;
  int quota = host.daily_quota > 0 ? host.daily_quota : limits.default_daily_quota;
  int quota_left = std::max(0, quota - host.results_sent_today) * std::max(1, host.ncpus);
  if (host.work_request_seconds <= 0) return selection;
  if (quota_left == 0) {
    selection.quota_reached = true;
    return selection;
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const CandidateResult& a, const CandidateResult& b) {
                     bool ra = reserved_for(a, host.id, now), rb = reserved_for(b, host.id, now);
                     if (ra != rb) return ra;
                     if (a.priority != b.priority) return a.priority > b.priority;
                     int ha = held_inputs(host, a), hb = held_inputs(host, b);
                     if (ha != hb) return ha > hb;
                     return a.result_id < b.result_id;
                   });
  std::set<int64_t> workunits_taken = host.workunits_held;
  double seconds_covered = 0;
  double disk_left = host.disk_free_bytes;
  for (const auto& candidate : candidates) {
    if (seconds_covered >= host.work_request_seconds) break;
    if (static_cast<int>(selection.chosen.size()) >= limits.max_results_per_reply) break;
    if (static_cast<int>(selection.chosen.size()) >= quota_left) {
      selection.quota_reached = true;
      break;
    }
    HostForScheduling view = host;
    view.disk_free_bytes = disk_left;
    switch (check_candidate(view, candidate, now)) {
      case SkipReason::None:
        break;
      case SkipReason::Platform:
        ++selection.skipped_platform;
        continue;
      case SkipReason::Memory:
        ++selection.skipped_memory;
        continue;
      case SkipReason::Disk:
        ++selection.skipped_disk;
        continue;
      case SkipReason::Deadline:
        ++selection.skipped_deadline;
        continue;
      default:
        continue;
    }
    if (!workunits_taken.insert(candidate.workunit_id).second) continue;
    selection.chosen.push_back(candidate);
    seconds_covered += estimated_runtime(host, candidate) / std::max(1, host.ncpus);
    disk_left -= candidate.rsc_disk_bound;
  }
  return selection;
}

int quota_after_error(int quota, int default_quota) {
  int current = quota > 0 ? quota : default_quota;
  return std::max(1, current / 2);
}

int quota_after_success(int quota, int default_quota) {
  int current = quota > 0 ? quota : default_quota;
  return std::min(default_quota, std::max(1, current) * 2);
}

}  // namespace tharsis
