// The client's side of a scheduler RPC as pure functions over HostState (no I/O): find
// the scheduler URL on the master page, decide whether to contact the scheduler now and
// how much work to ask for, build the <scheduler_request>, and fold the reply into the
// state (new files, app versions, workunits and results; acks, aborts, hostid, the code
// signing key, request_delay and back-off). client/lib/host_client.h does the I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "client/lib/client_state.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "lib/result.h"

namespace tharsis {

// What the client says about its machine (real or simulated).
struct HostDescription {
  std::string domain_name = "localhost";
  std::string platform = "x86_64-pc-linux-gnu";
  std::string os_name = "Linux", os_version;
  int ncpus = 1;
  double flops = 1e9;  // per CPU
  double memory_bytes = 4e9, disk_total_bytes = 1e11, disk_free_bytes = 5e10;
};

struct RpcPolicy {
  int buffer_tasks_per_cpu = 2;               // unfinished results to keep per CPU
  double max_request_delay = 1e9;             // cap on the server's request_delay (tests shorten it)
  double min_backoff = 1, max_backoff = 600;  // after failed or unproductive RPCs (doubling)
};

// The scheduler URLs a BOINC master page names, in page order, each once:
// <scheduler>URL</scheduler> (often inside an HTML comment) and <link rel="boinc_scheduler"
// href="URL">. A project with several scheduler hosts lists each (docs/scaling.md).
// Error: none named.
Result<std::vector<std::string>> find_scheduler_urls(std::string_view master_page);

// Records the schedulers in the state and picks this host's first one: hosts spread over
// the list by their cross-project id (host_cpid), so a crowd of hosts loads every
// scheduler host alike and each host keeps to one while it answers.
void set_schedulers(HostState& state, std::vector<std::string> urls);

// Seconds of work to request (0: none): enough for the missing buffer of unfinished
// results, expressed as the scheduler counts it (estimated runtime / ncpus per result).
double work_request_seconds(const HostState& state, const HostDescription& host, const RpcPolicy& policy);

// Whether to call the scheduler at `now`: something to report, or work wanted; never
// before state.next_rpc_time.
bool wants_scheduler_rpc(const HostState& state, const HostDescription& host, const RpcPolicy& policy,
                         double now);

// The request: every Done result is reported, every other held result is listed in
// <other_results> (so the server can resend lost ones and abort dead ones).
SchedulerRequest build_scheduler_request(const HostState& state, const HostDescription& host,
                                         double work_req_seconds, double now);

struct ReplyEffects {
  int new_results = 0, acked = 0, aborted = 0;
  std::vector<int> pids_to_kill;             // processes of results aborted while running
  std::vector<std::string> files_to_delete;  // no longer used by any result
  std::vector<std::string> messages;         // the scheduler's messages, for the log
};

// Folds a reply received at `now` into the state. Acked results are forgotten (with
// their workunit and input files once no other result uses them); aborted ones become
// Done with report state Aborted. A new code signing key is adopted only when none is
// held (BOINC's rule; a key change needs the old key's signature, which we do not do).
ReplyEffects apply_scheduler_reply(HostState& state, const SchedulerReply& reply, const RpcPolicy& policy,
                                   double now);

// A failed RPC (transport error or unparsable reply): back off.
// With several schedulers the next RPC goes to the next one in the list (a dead scheduler
// host costs each client one failed RPC, not its back-off).
void note_failed_rpc(HostState& state, const RpcPolicy& policy, double now);

}  // namespace tharsis
