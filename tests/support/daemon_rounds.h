// Runs the back-end daemons' passes in-process (transitioner, validator, assimilator with
// the results store, file deleter, plus any `extra` passes first) at time `now` until a
// full round does nothing; false if they had not settled after 50 rounds.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/daemon/daemon_loop.h"

namespace tharsis::testing {

bool run_daemons_until_idle(Database& db, const ProjectConfig& config, int64_t now,
                            const std::vector<DaemonWork*>& extra = {});

}  // namespace tharsis::testing
