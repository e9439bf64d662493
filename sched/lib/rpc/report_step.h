// Step 4 of a scheduler RPC (scheduler_rpc.h): the results the request reports.
// Runs inside the caller's transaction, after the host step (host_step.h). Writes: the
// reports to their results (mark_results_reported_by_name: only a result sent to this
// host and still taking reports changes; two statements for the whole list); the host's
// daily quota into `host` (errors halve it, successes grow it back, report_plan.h); and
// the host row itself when the plan puts the RPC's one write of it here (host_plan.h: a
// known host asking for no work). Loads: for the log line only, the first few reports
// that changed nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/result_store.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/rpc/host_step.h"

namespace tharsis {

void take_reports(Database& db, const SchedulerRequest& req, RecordedHost& host, bool asks_for_work,
                  int64_t now, int default_daily_quota);

// take_reports in pieces, for a group of requests whose reports are written together
// (grouped_rpc.h): the request's distinct reports as written ...
std::vector<NamedReport> named_reports(const SchedulerRequest& req, double host_p_fpops);
// ... and, once written, the reports `taken` (the rest were refused: logged) counted
// against the host's daily quota in `host`.
void settle_reports(Database& db, const SchedulerRequest& req, const std::vector<std::string>& taken,
                    HostRow& host, int default_daily_quota);

}  // namespace tharsis
