// Pure decisions of the scheduler RPC's authentication step (authenticate.h): whether a
// request is refused before or after its account is looked up (the error reply's text),
// and whether the reply must carry the project's code signing key.
#pragma once

#include <optional>
#include <string>

namespace tharsis {

// The refusal of a request by its rpc_seqno alone (host_identity.h: a negative count is
// never a client's); nullopt when it goes on to the account lookup.
std::optional<std::string> seqno_refusal(int rpc_seqno);

// The refusal after the account lookup: an empty authenticator, or none found.
std::optional<std::string> account_refusal(const std::string& authenticator, bool account_found);

// Whether the reply carries `ours`, the project's code signing key text: not when the
// client already has it. The client keeps the first key it gets; sending it again (even the
// same key, in other whitespace) makes the 7.20 client log "Missing code sign key signature".
bool client_needs_code_sign_key(const std::string& from_client, const std::string& ours);

}  // namespace tharsis
