// Cancelling workunits (BOINC's cancel_jobs): the submitter no longer wants them. Each
// named workunit gets error_mask |= WU_ERROR_CANCELLED and transition_time = now, all in
// one transaction; the transitioner then retires its unsent results and the scheduler
// tells every host still holding one of its results to abort it (<result_abort>) at
// that host's next RPC. Cancelling twice changes nothing the second time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/result.h"

namespace tharsis {

struct CancelOutcome {
  int cancelled = 0;          // newly cancelled
  int already_cancelled = 0;  // had the bit already
  int already_done = 0;       // assimilated already: too late, left alone
};

// Errors (nothing changed): a name that is no workunit.
Result<CancelOutcome> cancel_workunits(Database& db, const std::vector<std::string>& names, int64_t now);

}  // namespace tharsis
