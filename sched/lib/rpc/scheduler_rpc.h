// The scheduler RPC (docs/protocol.md): one walk down the steps of sched/lib/rpc/, each of
// which loads what it needs (db/), asks a pure planner (*_plan.h) and writes the plan:
//   1. parse the request (lib/protocol), bounded; malformed -> error reply;
//   2. authenticate.h: the account by authenticator (with the host it names, host_step.h,
//      in one statement); unknown -> error reply, nothing
//      changed; whether the client needs our code signing key;
//   3. host_step.h: find or create the host (id from the request if it belongs to this
//      user, else the user's host with the same cpid, else a new one) and record its
//      description;
//   4. report_step.h: take reported results: only results sent to this host and still in
//      progress change (OVER + outcome, workunit transition_time = now); every report named
//      is acknowledged, so duplicates and stale reports are harmless; accepted errors halve
//      the host's daily quota, accepted successes grow it back;
//   5. held_results_step.h: abort results the host holds whose workunit is dead (error or
//      already has its canonical result and the result is not needed), resend results it
//      lost;
//   6. choose_work_step.h: claim new work (sched/lib/work_selection.h) for the app
//      versions (from the process's AppVersionCache) and count it against the host's
//      daily quota;
//      (2 to 6 are one transaction, with the read of what the reply says of the results
//      sent (result_sender.h); a deadlock re-runs them whole)
//   7. reply_step.h: after the commit, the reply: aborts, resent and new results with
//      their input and output file descriptions (outputs carry a signed upload certificate).
// A report_get RPC (report one, get one) through FastCGI costs 8 statements in 1
// transaction (6 in a pool worker, whose candidates, and what the reply says of them, come
// from its cache: candidate_cache.h),
// none after its COMMIT (the scheduler's session has autocommit off:
// DbConfig::implicit_begin); docs/benchmarks.md ("Scheduler") lists them in order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "db/database.h"
#include "lib/protocol/scheduler_reply.h"
#include "sched/lib/rpc/scheduler_context.h"

namespace tharsis {

// Whether the database may serve this build (a fresh connection's schema check): run as
// the first statement of the RPC's transaction, so it costs no commit of its own; false
// answers "down for maintenance" before anything else is read or written.
using ConnectionCheck = std::function<bool(Database&)>;

// Handles one request body at time `now`; always returns a well-formed reply. With
// `check` set, a well-formed request runs it first (a malformed one is refused before).
SchedulerReply handle_scheduler_request(const std::string& body, Database& db,
                                        const SchedulerContext& context, int64_t now,
                                        const ConnectionCheck& check = nullptr);

}  // namespace tharsis
