// get_output.php's Tharsis command for operand graphs (docs/remote_submission.md):
//   ?cmd=graph_output&graph_id=G&auth_str=md5(authenticator + "graph" + G)
// answers the result tensor of a DONE graph as a .npy file (application/octet-stream),
// built by the same code as submit_graph --wait (tools/lib/graph_result.h). Only the
// graph's owner can form auth_str; a wrong one and a graph that does not exist get the
// same 403, so a guess learns nothing.
#pragma once

#include <cstdint>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/web/cgi_request.h"
#include "sched/lib/cgi_server.h"

namespace tharsis {

// The result is assembled in memory: at most this many bytes of tensor data.
inline constexpr int64_t kMaxGraphOutputBytes = int64_t{128} << 20;

HttpResponse graph_output_response(const QueryParams& query, Database& db, const ProjectConfig& config);

}  // namespace tharsis
