// The submit RPC endpoint's request handling (docs/remote_submission.md): from the POST
// body to the reply text. The form field `request` is extracted, the XML loaded under
// the limits, the operation named by its root element run, and the reply or a
// well-formed <error> rendered. Database failures (exceptions) are left to the caller's
// boundary, which answers with a server error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "sched/lib/submit/submit_limits.h"

namespace tharsis {

// The reply text for one request body.
std::string handle_submit_rpc(std::string_view body, Database& db, const ProjectConfig& config,
                              const SubmitLimits& limits, int64_t now);

}  // namespace tharsis
