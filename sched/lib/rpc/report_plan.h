// Pure decisions of the scheduler RPC's report step (report_step.h): what a reported
// result writes to its row, the daily quota after the accepted reports, and the one log
// line for the reports that changed nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/result_store.h"
#include "db/send_store.h"
#include "lib/protocol/scheduler_request.h"

namespace tharsis {

// The names the request reports, each once, in request order (a name reported again in
// the same request changes nothing the second time, as a duplicate in a later request).
std::vector<std::string> distinct_report_names(const SchedulerRequest& req);

// A success: the client uploaded its files (BOINC's RESULT_FILES_UPLOADED) and it exited 0.
bool reported_success(const ReportedResult& reported);

// What the report writes of the result (outcome, client state, times, the output files'
// descriptions, stderr); the credit claimed is reckoned from the host's `p_fpops`.
ResultReport report_of(const ReportedResult& reported, double p_fpops);

// The host's daily quota after `errors` and `successes` accepted reports: each error
// halves it; successes grow it back only when no error came with them.
int quota_after_reports(int quota, int errors, int successes, int default_quota);

// How many refused reports the log line names with the reason (asked of the database).
constexpr size_t kLoggedRefusedExamples = 3;

struct RefusedReportsLog {
  std::string line;
  bool warning = false;  // one unknown, or another host's: worth a warning
};
// The line for the reports of `names` that changed nothing, logged once per request however
// many there are (a request may name up to max_results of them): the count and the first
// few with their reason. `examples[i]` is the stored result named names[i] (nullopt:
// unknown), for the first kLoggedRefusedExamples names. nullopt when `names` is empty.
std::optional<RefusedReportsLog> refused_reports_log(
    const std::vector<std::string>& names, const std::vector<std::optional<HostResultRow>>& examples,
    int64_t host_id);

}  // namespace tharsis
