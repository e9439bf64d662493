// Step 6 of a scheduler RPC (scheduler_rpc.h): new work for a request that asks for it.
// Loads (no transaction): the best unsent candidates the host may take (db/send_store.h:
// kFirstCandidates, the wide window only when they do not cover the request), read again
// after a round that lost claims to a concurrent request; the app versions (result_sender.h).
// Decides: work_selection.h's choose_work, and choose_work_plan.h around it. Writes: each
// round's claims in one transaction that also counts them against the host's daily quota,
// and the RPC's one write of the host row (host_plan.h: in the first transaction that
// claims work, or alone if none does; not a new host's, inserted whole just before);
// the results won into the reply (result_sender.h), or why there are none.
#pragma once

#include <cstdint>
#include <vector>

#include "db/database.h"
#include "db/rows.h"
#include "db/send_store.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/rpc/result_sender.h"
#include "sched/lib/rpc/scheduler_context.h"

namespace tharsis {

// `in_progress`: the results in progress at the host (held_results_step.h).
void send_new_work(Database& db, const SchedulerRequest& req, const HostRow& host, bool host_created,
                   const std::vector<HostResultRow>& in_progress, int64_t now, const SchedulerContext& ctx,
                   ResultSender& sender, SchedulerReply& reply);

}  // namespace tharsis
