// One volunteer host's client: its data directory (client_state.xml, projects/ with the
// downloaded and produced files, slots/ where tasks run), its HTTP session and its child
// processes. step() does, without waiting, whatever is due now — reap finished tasks,
// download, start tasks, upload, call the scheduler — and saves the state after any
// change. tharsis-client runs one HostClient; simulation mode runs many in one process,
// each optionally driven by a HostBehaviour that injects faults.
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>

#include "client/lib/client_state.h"
#include "client/lib/file_transfer.h"
#include "client/lib/host_behaviour.h"
#include "client/lib/http_session.h"
#include "client/lib/scheduler_exchange.h"
#include "client/lib/transfer_backoff.h"
#include "lib/result.h"

namespace tharsis {

struct HostClientOptions {
  std::string data_dir;
  HostDescription host;
  RpcPolicy policy;
  int max_restarts = 3;  // crashes survived per result before it is a client error
  // Failed transfers are retried with back-off until the result's report deadline is near.
  TransferRetryPolicy transfer;
};

// What one client did, for progress lines and the final summary.
struct ClientCounters {
  int rpcs = 0, rpc_failures = 0;
  int results_received = 0, results_reported = 0;
  int succeeded = 0, app_errors = 0, crashes = 0, gave_up_after_crashes = 0, aborted = 0, transfer_errors = 0;
  int downloads = 0, uploads = 0;
  int garbage_outputs = 0;  // simulation: outputs corrupted on purpose
  void add(const ClientCounters& other);
};

class HostClient {
 public:
  explicit HostClient(HostClientOptions options);
  ~HostClient();

  // Loads client_state.xml (a missing one is a fresh client). Results that were running
  // when the client stopped are run again in a new slot.
  Status load();
  // Attaches to the project: records URL and account key and, unless scheduler_url is
  // given, reads the scheduler URL from the master page. Re-attaching to the same project
  // keeps the state; another project is refused.
  Status attach(const std::string& project_url, const std::string& authenticator,
                const std::string& scheduler_url = "");
  // Simulation: faults to inject from now on; the host vanishes for good after
  // faults.vanish_after_seconds counted from `start_time`. With FaultInjection::App the
  // task processes get the rates, a per-run seed (run_fault_seed of `seed`) and
  // task_seconds × slowness in their environment instead (client/lib/task_runner.h).
  void set_behaviour(const HostFaults& faults, uint64_t seed, double start_time,
                     FaultInjection inject = FaultInjection::Client, double task_seconds = 0);

  // Does what is due at `now`; returns whether anything happened (so a caller can idle).
  bool step(double now);
  // Kills running tasks (they run again from the start when the client comes back) and
  // saves the state.
  void shutdown();

  bool vanished() const { return vanished_; }
  const HostState& state() const { return state_; }
  const ClientCounters& counters() const { return counters_; }
  const HostClientOptions& options() const { return options_; }

 private:
  // Injected faults for one result (simulation), drawn when it first runs.
  struct Plan {
    int crashes_left = 0;  // runs to kill right after they start
    bool garbage = false;  // corrupt the output before upload
  };
  std::string file_path(const std::string& name) const;
  bool reap_tasks(double now);
  bool download_inputs(double now);
  bool start_tasks(double now);
  bool upload_outputs(double now);
  bool scheduler_rpc(double now);
  // Back-off after a failed transfer attempt (next try no later than `give_up_at`); the
  // file Fails for good on a permanent refusal (GiveUp).
  void note_transfer_failure(ClientFile& file, const TransferResult& attempt, const char* what,
                             double give_up_at, double now);
  enum class TransferDirection { Download, Upload };
  struct TransferSweep {
    bool all_done = true;  // every file is Present (download) / Uploaded (upload)
    std::string failure;   // why the result's transfers failed for good; empty if they did not
  };
  // One attempt on each of `refs`' files that is not done and due (past its back-off).
  // A download needs every file's file_info; an upload skips a file it has none for. The
  // result's transfers fail when a file is refused for good, or when one has failed and
  // `give_up_at` (the result's give-up time, transfer_backoff.h) has come. Never waits:
  // a file in back-off is skipped until it is due, so other hosts and results go on.
  TransferSweep transfer_files(const std::vector<ClientFileRef>& refs, TransferDirection direction,
                               double give_up_at, double now, bool& did);
  // When `result`'s failing transfers give up (transfer_backoff.h).
  double give_up_time(const ClientResult& result) const;
  void finish(ClientResult& result, int report_state, int exit_status, const std::string& why);
  void collect_outputs(ClientResult& result, double now);
  Plan& plan_for(const ClientResult& result);
  // Whether this client itself kills, fails and garbles (simulation with inject=client).
  bool client_injects() const;
  void save();

  HostClientOptions options_;
  HostState state_;
  ClientCounters counters_;
  HttpSession http_;
  std::unique_ptr<HostBehaviour> behaviour_;
  double behaviour_start_ = 0;
  uint64_t behaviour_seed_ = 0;
  FaultInjection inject_ = FaultInjection::Client;
  double task_seconds_ = 0;
  bool vanished_ = false;
  bool dirty_ = false;
  std::map<std::string, Plan> plans_;
  std::mt19937_64 transfer_random_;  // spreads transfer retries (seeded by set_behaviour in simulations)
};

}  // namespace tharsis
