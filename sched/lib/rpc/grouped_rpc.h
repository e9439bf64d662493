// Several scheduler requests served as one transaction whose every step is one statement
// for all of them: what a FastCGI pool worker does with the requests that wait at its
// socket together (serve_http.h's groups). The database's cost of an RPC is per
// statement, not per row (it plans each statement again at every execution:
// docs/benchmarks.md), so a group of eight pays for about as many statements as one
// request did.
// The steps are scheduler_rpc.h's, each generalized to several hosts:
//   1. the accounts, their hosts (locked) and their reports' workunits (locked): one read
//      (lock_accounts_hosts_and_reported_workunits);
//   2. every member's reports: one write, one stderr write (write_locked_reports_of_hosts);
//   3. the results in progress at every host: one read (fetch_in_progress_results_at_hosts);
//   4. the claims of every member's round of work: one statement a round
//      (claim_unsent_results; the members' WorkClaimers choose from the process's cache,
//      each passing over the results the members before it chose);
//   5. every host row: one write (update_hosts);
//   then the commit, and each member's reply as the single walk builds it.
// Only the common request joins a group (group_plan.h): well-formed, naming its host, with
// a plain authenticator, one request per host. One whose named host turns out not to be its
// account's own (another account's id, a copy of a client's state), like every request that
// did not join, is answered nullopt: the caller serves it alone (handle_scheduler_request)
// after the group's commit. A deadlock re-runs the group whole (Database::transaction); a
// group that fails otherwise throws, and the caller serves its members one by one, so one
// bad request costs the others only time. Every guard of the single walk holds: the
// statements are the same guarded writes, applied per host.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/rpc/scheduler_context.h"

namespace tharsis {

// Serves `bodies` at `now` as one group: out[i] is the reply to bodies[i], or nullopt for a
// request to serve alone. Throws what the database throws once its retries are spent.
std::vector<std::optional<SchedulerReply>> handle_scheduler_group(const std::vector<std::string>& bodies,
                                                                  Database& db, const SchedulerContext& ctx,
                                                                  int64_t now);

}  // namespace tharsis
