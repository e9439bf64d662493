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

#include "db/database.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/rpc/host_step.h"

namespace tharsis {

void take_reports(Database& db, const SchedulerRequest& req, RecordedHost& host, bool asks_for_work,
                  int64_t now, int default_daily_quota);

}  // namespace tharsis
