// Pure decisions of the scheduler RPC's host step (host_step.h) and of when the RPC writes
// the host row: which stored host a request speaks for, by the id it names, its account
// and its rpc_seqno (sched/lib/host_identity.h); what the row then holds; and where the
// RPC's one write of the row goes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/rows.h"
#include "lib/protocol/scheduler_request.h"

namespace tharsis {

// What to make of the host the request names by id (`named`: its stored row, locked;
// nullopt when no such host).
enum class NamedHost {
  Use,             // this account's, the same client: the request goes on with it
  NotThisAccount,  // absent or another account's: looked up by CPID instead
  CopiedState,     // a copy of its client state (a lower rpc_seqno): a new host, no CPID
                   // lookup (the copy has the original's CPID: it would find the original)
};
NamedHost judge_named_host(const std::optional<HostRow>& named, int64_t user_id, int request_seqno);

// The host text columns are VARCHAR(254): the parser made the text valid UTF-8, and longer
// text (os_version may be 8 KiB) is cut at a character boundary instead of failing the RPC
// (MariaDB's strict mode refuses an over-long value, error 1406).
std::string host_text(const std::string& text);

// The row to write for the request's host: `found` (id 0 when none: a new host, created
// at `now`) with the request's description of it, its owner, rpc_seqno and time, and a
// fresh daily count on a new day.
HostRow describe_host(std::optional<HostRow> found, const SchedulerRequest& req, int64_t user_id,
                      int64_t now);

// Where the RPC's one write of the host row (update_host) goes: a new host's row is
// inserted whole (a request for work then only adds its sends); a request for work writes
// it with its first claim of work, or alone after finding none (choose_work_step.h); any
// other with the reports (report_step.h).
enum class HostRowWrite { Inserted, WithReports, WithFirstClaim };
HostRowWrite plan_host_row_write(bool host_created, bool asks_for_work);

}  // namespace tharsis
