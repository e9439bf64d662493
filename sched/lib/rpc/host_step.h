// Step 3 of a scheduler RPC (scheduler_rpc.h): the host the request comes from.
// Runs inside the caller's transaction (with the reports, report_step.h). Takes: the host
// the request names, locked (SELECT .. FOR UPDATE) and the workunits of the results it
// reports, read with the account by the step before (authenticate.h's named_host, from
// lock_account_host_and_reported_workunits: neither step nor the report step needs a
// lock statement of its own). Loads: when that is not this account's host, this
// account's host with the request's CPID, locked. Decides (host_plan.h): which stored
// host, if any, and the row it gets. Writes: a new host's row (insert_host); a known
// host's row is written later, once (host_plan.h's plan_host_row_write).
#pragma once

#include <cstdint>
#include <optional>

#include "db/database.h"
#include "db/host_store.h"
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

// `named`: the host the request names (hostid > 0) and its reports' locks, as
// authenticate read them; ignored when the request names none.
RecordedHost find_or_create_host(Database& db, const SchedulerRequest& req, int64_t user_id, int64_t now,
                                 LockedHost named);

}  // namespace tharsis
