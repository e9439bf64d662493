// The project's computing speed for estimates (submit_rpc's estimate_batch): the summed
// benchmark FLOPS (host.p_fpops × p_ncpus) of hosts that contacted the scheduler since a time.
#pragma once

#include <cstdint>

#include "db/database.h"

namespace tharsis {

double recent_hosts_flops(Database& db, int64_t since);

}  // namespace tharsis
