// Simulation mode's description of one virtual host, given on the command line as
//   --host "auth=KEY,ncpus=2,task_failure=0.1,job_failure=0.05,garbage=0.5,vanish_after=20,slowness=3,seed=7"
// (every key optional; auth defaults to --authenticator). Each host gets its own data dir
// <data_dir>/host<i>, so its own state file, host id and host_cpid. Keys:
//   auth          account key                  ncpus         tasks run at once (1..256)
//   task_failure  α, per task, 0..1            job_failure   β, per job, 0..1
//   garbage       wrong output, per job, 0..1  vanish_after  seconds until the host is gone
//   slowness      compute time factor, >= 1    seed          the host's fault generator
//   inject        client (default) or app: who injects task/job/garbage faults
//                 (host_behaviour.h FaultInjection); app is for per-task apps (task_app)
//   task_seconds  inject=app only: SIMULATED compute time per task (0..3600 s, default 0)
//                 that the app sleeps (task_runner.h THARSIS_TASK_SECONDS); with
//                 inject=app, slowness scales this time instead of holding the upload
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "client/lib/host_behaviour.h"
#include "lib/result.h"

namespace tharsis {

struct SimulatedHostSpec {
  std::string authenticator;  // empty: the run's --authenticator
  int ncpus = 1;
  HostFaults faults;
  uint64_t seed = 0;  // 0: derived from the host's index
  FaultInjection inject = FaultInjection::Client;
  double task_seconds = 0;
};

// Parses the spec; unknown keys, bad numbers, out-of-range rates and task_seconds without
// inject=app are errors naming the key.
Result<SimulatedHostSpec> parse_simulated_host(std::string_view spec);

}  // namespace tharsis
