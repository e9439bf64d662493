// Step 7 of a scheduler RPC (scheduler_rpc.h): the reply, filled as the steps go. Pure: no
// database, no clock. The project's part, the host's and the account's (after the host and
// report steps), and each result sent or resent with what the client needs to run it
// (ReplyBuilder; result_sender.h reads what it needs).
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "db/rows.h"
#include "db/send_store.h"
#include "lib/config/project_config.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/app_version_cache.h"
#include "sched/lib/rpc/scheduler_context.h"

namespace tharsis {

// The name replies give the project: its long name, else its short one.
std::string project_name(const ProjectConfig& config);

// A reply with the project's part only (URL, name, request delay).
SchedulerReply base_reply(const ProjectConfig& config);

// The acks of every reported result (changed or not: the client may forget them), the
// host's id when the request did not name it, the host's credit and the account.
void add_host_and_account(SchedulerReply& reply, const SchedulerRequest& req, const HostRow& host,
                          const UserRow& user);

// Adds the results sent to a reply, each app, app version and file described once.
class ReplyBuilder {
 public:
  ReplyBuilder(const SchedulerContext& ctx, SchedulerReply& reply) : ctx_(ctx), reply_(reply) {}

  // Adds what the client needs to run `result` with `version`; false if the stored
  // descriptions are unusable or the upload certificate cannot be signed (logged; the
  // result is left out of the reply).
  bool add_result(const SendDetailsRow& result, const AppVersionCache::App& app,
                  const AppVersionCache::Version& version);

 private:
  void add_file(const ReplyFileInfo& f);
  const SchedulerContext& ctx_;
  SchedulerReply& reply_;
  std::set<std::string> apps_, files_;
  std::set<int64_t> versions_;
};

}  // namespace tharsis
