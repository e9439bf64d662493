// Simulation mode's description of one virtual host, given on the command line as
//   --host "auth=KEY,ncpus=2,task_failure=0.1,job_failure=0.05,garbage=0.5,vanish_after=20,slowness=3,seed=7"
// (every key optional; auth defaults to --authenticator). Each host gets its own data dir
// <data_dir>/host<i>, so its own state file, host id and host_cpid.
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
};

// Parses the spec; unknown keys, bad numbers and out-of-range rates are errors naming the key.
Result<SimulatedHostSpec> parse_simulated_host(std::string_view spec);

}  // namespace tharsis
