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
                                        int64_t now) {
  std::string project = project_name(ctx.config);
  auto request = parse_scheduler_request(body, ctx.limits);
  if (!request.ok()) {
    return make_error_reply(project, "Malformed scheduler request: " + request.error(), 3600);
  }
  const SchedulerRequest& req = *request;
  Authentication auth = authenticate(db, req, ctx.code_sign_public);
  if (!auth.user) return make_error_reply(project, auth.refusal, 3600);
  const UserRow& user = *auth.user;

  SchedulerReply reply = base_reply(ctx.config);
  bool wants_work = asks_for_work(req);
  // Steps 3 and 4 in one transaction. A request for work writes its host row with the
  // claim, one write per RPC (host_plan.h).
  RecordedHost host = db.transaction([&](Database& d) {
    RecordedHost found = find_or_create_host(d, req, user.id, now);
    take_reports(d, req, found, wants_work, now, ctx.config.daily_result_quota);
    return found;
  });
  add_host_and_account(reply, req, host.row, user);
  if (auth.send_code_sign_key) reply.code_sign_key = ctx.code_sign_public;

  ResultSender sender(db, ctx, req, now, reply);
  std::vector<HostResultRow> in_progress =
      abort_and_resend_held_results(db, req, host.row, wants_work, now, sender, reply);
  send_new_work(db, req, host.row, host.created, in_progress, now, ctx, sender, reply);
  return reply;
}

}  // namespace tharsis
