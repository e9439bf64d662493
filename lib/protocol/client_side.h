// The client's half of the scheduler RPC, for our own client/ and for round-trip tests:
// render a <scheduler_request> in the 7.20 client's layout (element names and order of
// client/cs_scheduler.cpp, but every string escaped) and parse a <scheduler_reply> into
// the same SchedulerReply the server renders from.
#pragma once

#include <string>
#include <string_view>

#include "lib/protocol/protocol_limits.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "lib/result.h"

namespace tharsis {

std::string render_scheduler_request(const SchedulerRequest& request);

// Parses a reply (a leading "Content-type:" header block is skipped). Unknown elements
// are ignored; wrong types, oversize fields and malformed XML are errors, and so is a name
// the client makes a path of (file_info and result names, file_ref file_name/open_name,
// delete_file_info) that is not is_safe_file_name (upload_protocol.h): "../x" and the like.
Result<SchedulerReply> parse_scheduler_reply(std::string_view xml, const ProtocolLimits& limits = {});

}  // namespace tharsis
