// Step 5 of a scheduler RPC (scheduler_rpc.h): the results the host holds. Runs inside
// the RPC's transaction. Loads: the results in progress at the host, when the request
// lists what it holds or asks for work (one read, also used by the choose work step), and
// each listed result not among them by name (rare: over, unknown or another host's).
// Decides (held_results_plan.h): which to abort, which it lost. Writes: each lost result
// resent (refresh_sent_result: a new deadline). What goes into the reply is returned and
// put there once the transaction commits (put_held_results), so a transaction re-run
// after a deadlock adds nothing twice.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "db/database.h"
#include "db/rows.h"
#include "db/send_store.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/rpc/result_sender.h"

namespace tharsis {

struct HeldResults {
  std::vector<HostResultRow> in_progress;  // empty when not read
  std::vector<std::string> aborts, aborts_if_not_started;
  std::vector<std::pair<int64_t, std::string>> resent;  // result id, name
};

HeldResults take_held_results(Database& db, const SchedulerRequest& req, const HostRow& host,
                              bool asks_for_work, int64_t now);

// The same with the results in progress at the host already read (`in_progress`: read
// when the request lists what it holds or asks for work, else empty), for a group of
// requests that read them together (grouped_rpc.h).
HeldResults take_held_results_read(Database& db, const SchedulerRequest& req, const HostRow& host,
                                   int64_t now, std::vector<HostResultRow> in_progress);
// Whether the step reads the host's results in progress.
bool reads_in_progress(const SchedulerRequest& req, bool asks_for_work);

// The resent results' ids, for ResultSender::load (inside the transaction).
std::vector<int64_t> resent_ids(const HeldResults& held);

// After the commit: the aborts and the resent results (with a message each) into the reply.
void put_held_results(const HeldResults& held, ResultSender& sender, SchedulerReply& reply);

}  // namespace tharsis
