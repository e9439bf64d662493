// Step 5 of a scheduler RPC (scheduler_rpc.h): the results the host holds. Loads (no
// transaction): the results in progress at the host, when the request lists what it holds
// or asks for work (one read, also used by the choose work step), and each listed result
// not among them by name (rare: over, unknown or another host's). Decides
// (held_results_plan.h): which to abort, which it lost. Writes: the aborts into the reply;
// each lost result resent (refresh_sent_result: a new deadline), each in its own
// transaction, and put into the reply (result_sender.h) with a message.
#pragma once

#include <cstdint>
#include <vector>

#include "db/database.h"
#include "db/rows.h"
#include "db/send_store.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/rpc/result_sender.h"

namespace tharsis {

// Returns the results in progress at the host (empty when not read).
std::vector<HostResultRow> abort_and_resend_held_results(Database& db, const SchedulerRequest& req,
                                                         const HostRow& host, bool asks_for_work, int64_t now,
                                                         ResultSender& sender, SchedulerReply& reply);

}  // namespace tharsis
