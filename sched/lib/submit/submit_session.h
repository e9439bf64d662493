// What every submit RPC operation works with: the database, the project, the limits and
// the clock (injected, so tests move it). An operation returns the reply's inner XML (the
// part inside the element named after the operation) or an error message; it changes
// nothing in the database when it returns an error.
#pragma once

#include <cstdint>
#include <string>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/result.h"
#include "sched/lib/submit/submit_limits.h"
#include "sched/lib/submit/submit_request.h"

namespace tharsis {

struct SubmitSession {
  Database& db;
  const ProjectConfig& config;
  const SubmitLimits& limits;
  int64_t now = 0;
};

using SubmitOperation = Result<std::string> (*)(SubmitDocument&, SubmitSession&);

}  // namespace tharsis
