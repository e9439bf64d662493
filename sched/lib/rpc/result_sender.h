// Putting results into the reply once their rows are this host's (claimed or resent): inside the
// RPC's transaction, reads what the reply needs of them (fetch_send_details, one read for all the
// RPC's results) and the app version to run each with (the process's AppVersionCache, or one for this
// request when the process keeps none; read again when due, app_version_cache.h); after the commit,
// renders them (reply_step.h). Shared by the held results step (resends) and the choose work step (new
// work), so one reply describes each app, version and file once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/send_store.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/app_version_cache.h"
#include "sched/lib/rpc/reply_step.h"
#include "sched/lib/rpc/scheduler_context.h"

namespace tharsis {

// The request's platforms, its own first, then its alternates.
std::vector<std::string> platforms_of(const SchedulerRequest& req);

// The app versions this host can run, per app: one lookup in the cache each.
class HostVersions {
 public:
  HostVersions(Database& db, AppVersionCache& cache, std::vector<std::string> platforms, int64_t now)
      : db_(db), cache_(cache), platforms_(std::move(platforms)), now_(now) {}
  const AppVersionCache::Choice& for_app(int64_t appid);
  std::vector<int64_t> apps_not_runnable() { return cache_.apps_not_runnable(db_, platforms_, now_); }

 private:
  Database& db_;
  AppVersionCache& cache_;
  std::vector<std::string> platforms_;
  int64_t now_;
  std::map<int64_t, AppVersionCache::Choice> chosen_;
};

class ResultSender {
 public:
  ResultSender(Database& db, const SchedulerContext& ctx, const SchedulerRequest& req, int64_t now,
               SchedulerReply& reply)
      : db_(db),
        versions_(db, ctx.app_versions ? *ctx.app_versions : request_cache_, platforms_of(req), now),
        builder_(ctx, reply) {}

  // Inside the transaction, after the results' rows changed for this host: reads what the
  // reply needs of them (one statement; none for those in `known`, taken as they are) and
  // the app version of each. Replaces what an earlier call read (a re-run transaction's).
  void load(const std::vector<int64_t>& result_ids, const std::map<int64_t, SendDetailsRow>& known = {});
  // After the commit: adds each of `result_ids` that load read, no statement. Returns those
  // that went in, in order: one is left out when it cannot be (gone, no version to run it
  // with, unusable description).
  std::vector<int64_t> add(const std::vector<int64_t>& result_ids);

  HostVersions& versions() { return versions_; }

 private:
  Database& db_;
  AppVersionCache request_cache_;  // when the process keeps none
  HostVersions versions_;
  ReplyBuilder builder_;
  std::map<int64_t, SendDetailsRow> loaded_;  // by result id
};

}  // namespace tharsis
