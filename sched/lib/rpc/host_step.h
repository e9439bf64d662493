// Step 3 of a scheduler RPC (scheduler_rpc.h): the host the request comes from.
// Runs inside the caller's transaction (with the reports, report_step.h). Loads: the host
// the request names, locked (SELECT .. FOR UPDATE) and, in the same statement, the
// workunits of the results it reports (lock_host_and_reported_workunits: the report step
// needs no lock statement of its own); when that is not this account's host, this
// account's host with the request's CPID, locked. Decides (host_plan.h): which stored
// host, if any, and the row it gets. Writes: a new host's row (insert_host); a known
// host's row is written later, once (host_plan.h's plan_host_row_write).
#pragma once

#include <cstdint>
#include <optional>

#include "db/database.h"
#include "db/result_store.h"
#include "db/rows.h"
#include "lib/protocol/scheduler_request.h"

namespace tharsis {

struct RecordedHost {
  HostRow row;
  bool created = false;  // inserted by this request: the row is fresh
  // The workunits locked for the request's reports (distinct_report_names) with this
  // host's row; nullopt when this row was not read with them (a new host, another one).
  std::optional<ReportLocks> report_locks;
};

RecordedHost find_or_create_host(Database& db, const SchedulerRequest& req, int64_t user_id, int64_t now);

}  // namespace tharsis
