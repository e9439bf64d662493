// Implementation of sched/lib/rpc/scheduler_rpc.h: the walk, one call per step.
#include "sched/lib/rpc/scheduler_rpc.h"

#include "lib/protocol/scheduler_request.h"
#include "sched/lib/rpc/authenticate.h"
#include "sched/lib/rpc/choose_work_plan.h"
#include "sched/lib/rpc/choose_work_step.h"
#include "sched/lib/rpc/held_results_step.h"
#include "sched/lib/rpc/host_step.h"
#include "sched/lib/rpc/reply_step.h"
#include "sched/lib/rpc/report_step.h"
#include "sched/lib/rpc/result_sender.h"

namespace tharsis {

SchedulerReply handle_scheduler_request(const std::string& body, Database& db, const SchedulerContext& ctx,
                                        int64_t now, const ConnectionCheck& check) {
  std::string project = project_name(ctx.config);
  auto request = parse_scheduler_request(body, ctx.limits);
  if (!request.ok()) {
    return make_error_reply(project, "Malformed scheduler request: " + request.error(), 3600);
  }
  const SchedulerRequest& req = *request;
  SchedulerReply reply = base_reply(ctx.config);
  bool wants_work = asks_for_work(req);
  ResultSender sender(db, ctx, req, now, reply);
  // Steps 2 to 6 in one transaction, one commit per RPC and no statement after it: the
  // host row is written once (host_plan.h), the reports, resends and claims with it, and
  // what the reply needs of the results sent is read before the commit. Nothing goes into
  // the reply until it commits: a re-run after a deadlock starts from a clean slate.
  struct Taken {
    bool down = false;  // the check refused the database
    Authentication auth;
    RecordedHost host;
    HeldResults held;
    NewWork work;
  };
  Taken taken = db.transaction([&](Database& d) {
    Taken t;
    if (check && !check(d)) {
      t.down = true;
      return t;
    }
    t.auth = authenticate(d, req, ctx.code_sign_public);
    if (!t.auth.user) return t;
    t.host = find_or_create_host(d, req, t.auth.user->id, now,
                                 std::move(t.auth.named_host).value_or(LockedHost{}));
    take_reports(d, req, t.host, wants_work, now, ctx.config.daily_result_quota);
    t.held = take_held_results(d, req, t.host.row, wants_work, now);
    t.work =
        claim_new_work(d, req, t.host.row, t.host.created, t.held.in_progress, now, ctx, sender.versions());
    std::vector<int64_t> sent = resent_ids(t.held);
    sent.insert(sent.end(), t.work.won.begin(), t.work.won.end());
    sender.load(sent, t.work.details);
    return t;
  });
  if (taken.down)
    return make_error_reply(project, "Project is down for maintenance (database upgrade)", 3600);
  if (!taken.auth.user) return make_error_reply(project, taken.auth.refusal, 3600);
  add_host_and_account(reply, req, taken.host.row, *taken.auth.user);
  if (taken.auth.send_code_sign_key) reply.code_sign_key = ctx.code_sign_public;
  put_held_results(taken.held, sender, reply);
  put_new_work(taken.work, req, sender, reply);
  return reply;
}

}  // namespace tharsis
