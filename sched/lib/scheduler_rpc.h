// The scheduler RPC (docs/protocol.md), step by step, each step its own small function:
//   1. parse the request (lib/protocol), bounded; malformed -> error reply;
//   2. authenticate by authenticator; unknown -> error reply, nothing changed;
//   3. find or create the host (id from the request if it belongs to this user, else
//      the user's host with the same cpid, else a new one) and record its description;
//   4. take reported results: only results sent to this host and still in progress
//      change (OVER + outcome, workunit transition_time = now); every report named is
//      acknowledged, so duplicates and stale reports are harmless; accepted errors halve
//      the host's daily quota, accepted successes grow it back;
//      (3 and 4 are one transaction: the host row is written once, after the reports)
//   5. abort results the host holds whose workunit is dead (error or already has its
//      canonical result and the result is not needed), resend results it lost (each
//      resend its own transaction);
//   6. send new work (sched/lib/work_selection.h) with app versions (from the
//      process's AppVersionCache), input and output file descriptions (outputs carry a
//      signed upload certificate); each round of claims is one transaction that also
//      counts them against the host's daily quota;
//   7. render the reply.
// A report_get RPC (report one, get one) costs 14 statements in 2 transactions; see
// README's scheduler section for the list.
#pragma once

#include <cstdint>
#include <string>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/crypto/rsa_key.h"
#include "lib/protocol/protocol_limits.h"
#include "lib/protocol/scheduler_reply.h"
#include "sched/lib/app_version_cache.h"

namespace tharsis {

struct SchedulerContext {
  const ProjectConfig& config;
  RsaKey upload_private_key;     // signs upload certificates
  std::string code_sign_public;  // BOINC key text sent to clients that lack it
  ProtocolLimits limits;
  // Kept across the requests of a FastCGI process; null: apps and versions are read per request.
  AppVersionCache* app_versions = nullptr;
};

// Handles one request body at time `now`; always returns a well-formed reply.
SchedulerReply handle_scheduler_request(const std::string& body, Database& db,
                                        const SchedulerContext& context, int64_t now);

}  // namespace tharsis
