// Step 2 of a scheduler RPC (scheduler_rpc.h): the account a request speaks for.
// Loads: the user by authenticator (one read, the first of the RPC's transaction; not
// done for a request refused by its rpc_seqno). A request that names its host (hostid > 0)
// reads, in that same statement, the host row locked and its reports' workunits locked
// (lock_account_host_and_reported_workunits), which the host step takes (host_step.h).
// Writes nothing. Decides (authenticate_plan.h): the refusal, if any, and whether the
// reply carries the project's code signing key.
#pragma once

#include <optional>
#include <string>

#include "db/database.h"
#include "db/host_store.h"
#include "db/rows.h"
#include "lib/protocol/scheduler_request.h"

namespace tharsis {

struct Authentication {
  std::optional<UserRow> user;  // null: refused, with `refusal` the error reply's text
  std::string refusal;
  bool send_code_sign_key = false;
  // The host the request names and its reports' locks, read with the account when the
  // request names one (nullopt otherwise, and when refused).
  std::optional<LockedHost> named_host;
};

Authentication authenticate(Database& db, const SchedulerRequest& req, const std::string& code_sign_public);

}  // namespace tharsis
