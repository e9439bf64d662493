// The scheduler's choice of work for one request, as pure functions: which of
// the candidate unsent results may go to this host, in what order, and how many. The
// scheduler shell loads candidates from the DB, calls choose_work, and commits the sends.
// Also the per-host daily quota, which shrinks on errors and recovers on successes.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace tharsis {

// What the request says about the host, plus what the DB knows of it.
struct HostForScheduling {
  int64_t id = 0;
  std::set<std::string> platforms;  // primary and alternate platform names
  double memory_bytes = 0;          // m_nbytes
  double disk_free_bytes = 0;       // d_free
  double flops = 1e9;               // p_fpops, per CPU
  int ncpus = 1;
  double work_request_seconds = 0;  // work_req_seconds (or cpu_req_secs)
  int results_sent_today = 0;       // host.nresults_today
  int daily_quota = 0;              // host.max_results_day (0: use the project's default)
  // Workunits this host already holds a result of (sent earlier, any state):
  // never two results of one workunit to one host (redundancy must be independent).
  std::set<int64_t> workunits_held;
  // Input file names the host already holds (sticky files), for locality.
  std::set<std::string> files_held;
};

// One unsent result with what its workunit and app need.
struct CandidateResult {
  int64_t result_id = 0;
  int64_t workunit_id = 0;
  std::string platform;  // platform of the app version that would run it
  double rsc_memory_bound = 0;
  double rsc_disk_bound = 0;
  double rsc_fpops_est = 0;
  int delay_bound = 0;          // seconds
  int priority = 0;             // higher first (operand priority folds in here)
  int64_t preferred_host = 0;   // 0: none; else the host holding most inputs (locality)
  int64_t preferred_until = 0;  // the preference lapses at this time (short wait, then anyone)
  std::vector<std::string> input_files;
};

struct SelectionLimits {
  int max_results_per_reply = 50;  // config <max_wus_to_send>
  int default_daily_quota = 500;   // config <daily_result_quota>
};

// Why a candidate was passed over; reported in logs and the reply's messages.
enum class SkipReason { None, SameWorkunit, Platform, Memory, Disk, Deadline, Quota, ReservedForOtherHost };

struct Selection {
  std::vector<CandidateResult> chosen;  // in send order
  int skipped_platform = 0, skipped_memory = 0, skipped_disk = 0, skipped_deadline = 0;
  bool quota_reached = false;
};

// Estimated seconds this host needs for a result (fpops / flops).
double estimated_runtime(const HostForScheduling& host, const CandidateResult& candidate);

// The reason `candidate` cannot go to `host` at `now`, or None.
SkipReason check_candidate(const HostForScheduling& host, const CandidateResult& candidate, int64_t now);

// Picks results for `host`: candidates ordered by (reserved for this host first, priority
// desc, more inputs already held desc, result id asc), each passing check_candidate, at
// most one per workunit, until the work request is covered (at least one result if any
// work is requested), the reply limit or the daily quota is reached.
Selection choose_work(const HostForScheduling& host, std::vector<CandidateResult> candidates,
                      const SelectionLimits& limits, int64_t now);

// Daily quota after a reported result (BOINC's rule): an error halves it (never below 1),
// a valid success doubles it back, capped at the project's default.
int quota_after_error(int quota, int default_quota);
int quota_after_success(int quota, int default_quota);

}  // namespace tharsis
