// Step 6 of a scheduler RPC (scheduler_rpc.h): new work for a request that asks for it.
// Runs inside the RPC's transaction. Loads: the best unsent candidates the host may take,
// read with locks that concurrent requests pass over (db/send_store.h
// lock_send_candidates): a first window sized to the request by the queue head's job size
// (choose_work_plan.h first_window), wider ones only when it does not cover the request,
// read again after a round that lost claims; the app versions (result_sender.h).
// Decides: work_selection.h's choose_work, and choose_work_plan.h around it. Writes: each
// round's claims, and the RPC's one write of the host row (host_plan.h: counting the
// results claimed against its daily quota; not a new host's, inserted whole just before).
// The results won go into the reply once the transaction commits (put_new_work), or why
// there are none (asked inside the transaction, only then: is the work left all for apps
// the host cannot run?).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "db/database.h"
#include "db/result_store.h"
#include "db/rows.h"
#include "db/send_store.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"
#include "sched/lib/rpc/result_sender.h"
#include "sched/lib/rpc/scheduler_context.h"
#include "sched/lib/work_selection.h"

namespace tharsis {

struct NewWork {
  bool asked = false;
  std::vector<int64_t> won;  // in the order chosen (the reply's order)
  // What the reply says of those won from the process's candidate cache, by result id
  // (the rest are read: ResultSender::load).
  std::map<int64_t, SendDetailsRow> details;
  bool quota_reached = false;
  // For the reply without work: the last read found no candidate, and all the work left
  // is for apps without a version for the host.
  bool only_unrunnable = false;
};

// One request's claiming of new work, round by round (the loop of claim_new_work below):
// each round reads candidates, chooses, and hands out its claims; whoever runs the
// statement (claim_new_work for a lone request, a group of requests for all their rounds at
// once, grouped_rpc.h) tells it which went through. Writes nothing itself but the
// candidates' locks and, asked only when a claim failed, reads why.
class WorkClaimer {
 public:
  // `in_progress`: the results in progress at the host (held_results_step.h). A request
  // that asks for no work is done() at once.
  WorkClaimer(Database& db, const SchedulerRequest& req, const HostRow& host,
              const std::vector<HostResultRow>& in_progress, int64_t now, const SchedulerContext& ctx,
              HostVersions& versions);
  bool done() const { return done_; }
  // The next round's claims, in claim order (maybe none; settle still ends the round).
  // `elsewhere`: results other requests of a group claim in this round, not chosen here.
  std::vector<SendClaim> next_claims(const std::set<int64_t>& elsewhere = {});
  // The round's outcome: the results whose claims went through (others' may be among them).
  void settle(const std::set<int64_t>& won);
  // After the last round: the results won, in the reply's order, and why none if none (two
  // more queries only when no candidate was read and some apps have no version for the host).
  NewWork finish();

 private:
  std::vector<CandidateResult> read_candidates(int limit, const std::set<int64_t>& elsewhere);
  std::vector<CandidateResult> lock_candidates(int limit);

  Database& db_;
  const HostRow& host_;
  int64_t now_;
  const SchedulerContext& ctx_;
  HostVersions& versions_;
  HostForScheduling view_;
  SendFilter filter_;
  SelectionLimits limits_;
  std::map<int64_t, int64_t> version_of_result_;  // candidate result id -> app version to send it with
  int window_ = 0;
  int round_ = 0;
  bool done_ = false;
  std::set<int64_t> gone_;  // chosen in an earlier round: not chosen again
  std::vector<CandidateResult> candidates_;
  Selection selection_;
  std::vector<SendClaim> claims_;  // this round's
  NewWork work_;
};

// A lone request's claims: WorkClaimer's rounds, each claimed in one statement, then the
// RPC's one write of the host row (host_plan.h: counting the results claimed against its
// daily quota; not a new host's, inserted whole just before).
NewWork claim_new_work(Database& db, const SchedulerRequest& req, const HostRow& host, bool host_created,
                       const std::vector<HostResultRow>& in_progress, int64_t now,
                       const SchedulerContext& ctx, HostVersions& versions);

// After the commit: the results won into the reply (sender.load read them), or the message
// saying why there are none.
void put_new_work(const NewWork& work, const SchedulerRequest& req, ResultSender& sender,
                  SchedulerReply& reply);

}  // namespace tharsis
