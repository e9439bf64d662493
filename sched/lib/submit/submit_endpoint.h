// The serving shell shared by the submitters' XML endpoints (submit_rpc, job_file): the
// project from the program's location (or $THARSIS_PROJECT_DIR), config.xml, the size
// limit, POST only, one database connection kept across FastCGI requests and reopened
// after a failure, and every refusal or failure as a well-formed BOINC <error>.
#pragma once

#include <functional>
#include <string>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "sched/lib/cgi_server.h"
#include "sched/lib/submit/submit_limits.h"

namespace tharsis {

// Handles one POSTed request body; its answer is the XML reply.
using SubmitEndpointHandler = std::function<std::string(
    const std::string& body, Database& db, const ProjectConfig& config, const SubmitLimits& limits)>;

// Runs `program` as CGI or FastCGI until done; returns the exit code. `kind` names its
// requests in the refusal of a GET ("<kind> requests must be POSTed").
int serve_submit_endpoint(const std::string& program, const std::string& kind,
                          const SubmitEndpointHandler& handler);

}  // namespace tharsis
