// Implementation of sched/lib/rpc/grouped_rpc.h: the single walk's steps (scheduler_rpc.cpp)
// with one statement per step for every member.
#include "sched/lib/rpc/grouped_rpc.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "db/host_store.h"
#include "db/result_store.h"
#include "db/send_store.h"
#include "sched/lib/rpc/authenticate_plan.h"
#include "sched/lib/rpc/choose_work_plan.h"
#include "sched/lib/rpc/choose_work_step.h"
#include "sched/lib/rpc/group_plan.h"
#include "sched/lib/rpc/held_results_step.h"
#include "sched/lib/rpc/host_plan.h"
#include "sched/lib/rpc/host_step.h"
#include "sched/lib/rpc/report_plan.h"
#include "sched/lib/rpc/report_step.h"
#include "sched/lib/rpc/result_sender.h"

namespace tharsis {
namespace {

struct Member {
  Member(Database& db, const SchedulerContext& ctx, const SchedulerRequest& request, int64_t now)
      : req(request),
        wants_work(asks_for_work(request)),
        reply(base_reply(ctx.config)),
        sender(db, ctx, request, now, reply) {}
  const SchedulerRequest& req;
  bool wants_work;
  SchedulerReply reply;  // the sender's builder writes into it: a Member never moves
  ResultSender sender;
  // What a run of the group's transaction took for this member (reset by a re-run).
  bool alone = false;  // its named host is not its account's own: served alone
  std::optional<UserRow> user;
  std::string refusal;
  bool send_code_sign_key = false;
  RecordedHost host;
  HeldResults held;
  NewWork work;
};

// Step 1 (accounts, hosts and reports' locks): the members that go on, refusals and those
// to serve alone marked.
std::vector<Member*> take_accounts(Database& db, std::vector<std::unique_ptr<Member>>& members,
                                   const SchedulerContext& ctx, int64_t now) {
  std::vector<AccountHostQuery> queries;
  for (const auto& m : members) {
    queries.push_back({m->req.authenticator, m->req.hostid, distinct_report_names(m->req)});
  }
  std::vector<AccountAndHost> read = lock_accounts_hosts_and_reported_workunits(db, queries);
  std::vector<Member*> going_on;
  for (size_t k = 0; k < members.size(); ++k) {
    Member& m = *members[k];
    if (auto refusal = account_refusal(m.req.authenticator, read[k].user.has_value())) {
      m.refusal = *refusal;
      continue;
    }
    if (judge_named_host(read[k].locked.host, read[k].user->id, m.req.rpc_seqno) != NamedHost::Use) {
      m.alone = true;  // the single walk finds or creates its host, and says why
      continue;
    }
    m.user = std::move(read[k].user);
    m.send_code_sign_key = client_needs_code_sign_key(m.req.code_sign_key, ctx.code_sign_public);
    m.host = RecordedHost{describe_host(std::move(read[k].locked.host), m.req, m.user->id, now), false,
                          std::move(read[k].locked.reports)};
    going_on.push_back(&m);
  }
  return going_on;
}

// Step 2: the members' reports, written together, each counted against its host's quota.
void take_group_reports(Database& db, const std::vector<Member*>& members, const SchedulerContext& ctx,
                        int64_t now) {
  std::vector<std::vector<NamedReport>> reports;
  reports.reserve(members.size());
  std::vector<HostReports> by_host;
  for (Member* m : members) {
    reports.push_back(named_reports(m->req, m->host.row.p_fpops));
    by_host.push_back({m->host.row.id, &reports.back(), &*m->host.report_locks});
  }
  std::vector<std::vector<std::string>> taken = write_locked_reports_of_hosts(db, by_host, now);
  for (size_t k = 0; k < members.size(); ++k)
    settle_reports(db, members[k]->req, taken[k], members[k]->host.row, ctx.config.daily_result_quota);
}

// Step 3: the results each host holds, read together.
void take_group_held_results(Database& db, const std::vector<Member*>& members, int64_t now) {
  std::vector<int64_t> readers;
  for (Member* m : members) {
    if (reads_in_progress(m->req, m->wants_work)) readers.push_back(m->host.row.id);
  }
  auto in_progress = fetch_in_progress_results_at_hosts(db, readers);
  for (Member* m : members) {
    std::vector<HostResultRow> held;
    if (reads_in_progress(m->req, m->wants_work)) held = std::move(in_progress[m->host.row.id]);
    m->held = take_held_results_read(db, m->req, m->host.row, now, std::move(held));
  }
}

// Step 4: every member's rounds of claims, a round's claims of all in one statement, in
// workunit order as every claimer orders its own.
void claim_group_work(Database& db, const std::vector<Member*>& members, const SchedulerContext& ctx,
                      int64_t now) {
  std::vector<std::unique_ptr<WorkClaimer>> claimers;
  for (Member* m : members) {
    claimers.push_back(std::make_unique<WorkClaimer>(db, m->req, m->host.row, m->held.in_progress, now, ctx,
                                                     m->sender.versions()));
  }
  for (;;) {
    std::vector<WorkClaimer*> in_round;
    std::vector<SendClaim> claims;
    std::set<int64_t> chosen;  // by the members before: not chosen again in this round
    for (auto& claimer : claimers) {
      if (claimer->done()) continue;
      in_round.push_back(claimer.get());
      for (const SendClaim& claim : claimer->next_claims(chosen)) {
        chosen.insert(claim.result_id);
        claims.push_back(claim);
      }
    }
    if (in_round.empty()) break;
    std::stable_sort(claims.begin(), claims.end(),
                     [](const SendClaim& a, const SendClaim& b) { return a.workunit_id < b.workunit_id; });
    std::vector<int64_t> won = claim_unsent_results(db, claims);
    std::set<int64_t> won_set(won.begin(), won.end());
    for (WorkClaimer* claimer : in_round) claimer->settle(won_set);
  }
  for (size_t k = 0; k < members.size(); ++k) members[k]->work = claimers[k]->finish();
}

}  // namespace

std::vector<std::optional<SchedulerReply>> handle_scheduler_group(const std::vector<std::string>& bodies,
                                                                  Database& db, const SchedulerContext& ctx,
                                                                  int64_t now) {
  std::vector<std::optional<SchedulerReply>> out(bodies.size());
  std::vector<std::optional<SchedulerRequest>> parsed(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    auto request = parse_scheduler_request(bodies[i], ctx.limits);
    if (request.ok()) parsed[i] = std::move(*request);
  }
  std::vector<size_t> indices = group_members(parsed);
  if (indices.empty()) return out;
  std::vector<std::unique_ptr<Member>> members;
  for (size_t i : indices) members.push_back(std::make_unique<Member>(db, ctx, *parsed[i], now));

  db.transaction([&](Database& d) {
    for (auto& m : members) {
      m->alone = false;
      m->user.reset();
      m->refusal.clear();
    }
    std::vector<Member*> going_on = take_accounts(d, members, ctx, now);
    if (going_on.empty()) return;
    take_group_reports(d, going_on, ctx, now);
    take_group_held_results(d, going_on, now);
    claim_group_work(d, going_on, ctx, now);
    // Step 5: every host row, once, with the results it was sent.
    std::vector<HostWrite> writes;
    for (Member* m : going_on) writes.push_back({m->host.row, static_cast<int>(m->work.won.size())});
    update_hosts(d, writes, now);
    // What the replies say of the results sent, read before the commit (none from the cache).
    for (Member* m : going_on) {
      std::vector<int64_t> sent = resent_ids(m->held);
      sent.insert(sent.end(), m->work.won.begin(), m->work.won.end());
      m->sender.load(sent, m->work.details);
    }
  });

  std::string project = project_name(ctx.config);
  for (size_t k = 0; k < members.size(); ++k) {
    Member& m = *members[k];
    if (m.alone) continue;
    if (!m.user) {
      out[indices[k]] = make_error_reply(project, m.refusal, 3600);
      continue;
    }
    add_host_and_account(m.reply, m.req, m.host.row, *m.user);
    if (m.send_code_sign_key) m.reply.code_sign_key = ctx.code_sign_public;
    put_held_results(m.held, m.sender, m.reply);
    put_new_work(m.work, m.req, m.sender, m.reply);
    out[indices[k]] = std::move(m.reply);
  }
  return out;
}

}  // namespace tharsis
