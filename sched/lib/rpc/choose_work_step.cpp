// Implementation of sched/lib/rpc/choose_work_step.h.
#include "sched/lib/rpc/choose_work_step.h"

#include <map>
#include <set>

#include "db/host_store.h"
#include "db/result_store.h"
#include "sched/lib/rpc/choose_work_plan.h"
#include "sched/lib/rpc/host_plan.h"
#include "sched/lib/work_selection.h"

namespace tharsis {
namespace {

// Whether all the unsent work this host never had a result of is for apps with no version
// for its platform: asked only when a request got nothing and such apps exist (two more
// queries), to tell the volunteer why.
bool only_unrunnable_work(Database& db, int64_t host_id, const std::vector<int64_t>& apps_not_runnable) {
  if (apps_not_runnable.empty() || fetch_send_candidates(db, host_id, 1).empty()) return false;
  return fetch_send_candidates(db, apps_only_filter(host_id, apps_not_runnable), 1).empty();
}

}  // namespace

WorkClaimer::WorkClaimer(Database& db, const SchedulerRequest& req, const HostRow& host,
                         const std::vector<HostResultRow>& in_progress, int64_t now,
                         const SchedulerContext& ctx, HostVersions& versions)
    : db_(db), host_(host), now_(now), ctx_(ctx), versions_(versions) {
  if (!asks_for_work(req)) {
    done_ = true;
    return;
  }
  work_.asked = true;
  view_ = scheduling_view(host, platforms_of(req), requested_seconds(req), in_progress, req.held_files);
  filter_ = send_filter(view_, versions.apps_not_runnable(), now);
  limits_ = SelectionLimits{ctx.config.max_wus_to_send, ctx.config.daily_result_quota};
  window_ = first_window(view_, limits_, ctx.queue_head ? ctx.queue_head->job_fpops : 0);
}

// Read with locks, passing over the rows another request holds: concurrent requests take
// different candidates, so a claim is lost only to a rule the read cannot see (a host's own
// concurrent request, another Galera node).
std::vector<CandidateResult> WorkClaimer::lock_candidates(int limit) {
  std::vector<CandidateResult> out;
  filter_.disk_free_bytes = view_.disk_free_bytes;  // less what this request was sent so far
  for (const auto& row : lock_send_candidates(db_, filter_, limit)) {
    const auto& choice = versions_.for_app(row.appid);
    out.push_back(candidate_of(row, choice.version ? choice.version->platform : ""));
    if (choice.version) version_of_result_[row.result_id] = choice.version->row.id;
  }
  return out;
}

// From this process's cache (candidate_cache.h), when it has one: the rows the host can take,
// in queue order, read and locked from the queue only when the cache holds fewer than the
// window for it (the rest of the queue is other processes' parts, or beyond what the cache
// holds).
std::vector<CandidateResult> WorkClaimer::read_candidates(int limit, const std::set<int64_t>& elsewhere) {
  CandidateCache* cache = ctx_.candidate_cache;
  if (!cache) return lock_candidates(limit);
  if (cache->refill_due(now_)) refill_candidate_cache(db_, *cache, now_);
  std::vector<CandidateResult> out;  // each row the host takes, built once
  cache->offer(static_cast<size_t>(limit), host_.id, [&](const SendCandidateRow& r) {
    if (gone_.count(r.result_id) || elsewhere.count(r.result_id)) return false;
    const auto& choice = versions_.for_app(r.appid);
    if (!choice.version) return false;
    CandidateResult candidate = candidate_of(r, choice.version->platform);
    if (check_candidate(view_, candidate, now_) != SkipReason::None) return false;
    version_of_result_[r.result_id] = choice.version->row.id;
    out.push_back(std::move(candidate));
    return true;
  });
  if (out.size() < static_cast<size_t>(limit)) {
    std::set<int64_t> have;
    for (const auto& c : out) have.insert(c.result_id);
    for (auto& c : lock_candidates(limit)) {
      if (!have.count(c.result_id)) out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<SendClaim> WorkClaimer::next_claims(const std::set<int64_t>& elsewhere) {
  claims_.clear();
  if (done_) return claims_;
  // Neither window holds a workunit the host already had a result of (the query passes
  // over them), so a host that holds results of the first thousand workunits still sees
  // the ones after.
  candidates_ = read_candidates(window_, elsewhere);
  if (ctx_.queue_head && !candidates_.empty()) ctx_.queue_head->job_fpops = head_job_fpops(candidates_);
  std::vector<CandidateResult> open;
  for (const auto& c : candidates_) {
    if (!gone_.count(c.result_id) && !elsewhere.count(c.result_id)) open.push_back(c);
  }
  selection_ = choose_work(view_, open, limits_, now_);
  for (const auto& c : claim_order(selection_.chosen)) {
    auto version = version_of_result_.find(c.result_id);
    if (version == version_of_result_.end()) continue;  // nothing to run it with (an empty platform name)
    claims_.push_back(
        {c.result_id, c.workunit_id, host_.id, host_.userid, now_, c.delay_bound, version->second});
  }
  return claims_;
}

void WorkClaimer::settle(const std::set<int64_t>& all_won) {
  if (done_) return;
  CandidateCache* cache = ctx_.candidate_cache;
  std::set<int64_t> won, had;
  for (const auto& claim : claims_) {
    if (all_won.count(claim.result_id)) won.insert(claim.result_id);
  }
  for (const auto& claim : claims_) {
    // Never two results of one workunit to one host (BOINC's rule: a quorum needs independent hosts),
    // also after it reported the first: workunits_held knows only the results it holds. (Found by the
    // chaos run: a graph operand's two results, reserved for one host, both went to it.) The claim
    // refused it; asked only now, the common path pays nothing.
    if (!won.count(claim.result_id) && host_has_result_of(db_, claim.workunit_id, host_.id))
      had.insert(claim.workunit_id);
    if (!cache) continue;
    if (had.count(claim.workunit_id)) {
      cache->refused(claim.workunit_id, host_.id);  // the row stays for other hosts
    } else {
      auto details =
          cache->claimed(claim.result_id, claim.workunit_id, host_.id, won.count(claim.result_id) > 0);
      if (details) {
        details->report_deadline = claim.now + claim.delay_bound;  // as the claim wrote it
        work_.details.emplace(claim.result_id, std::move(*details));
      }
    }
  }
  for (int64_t result_id : settle_round(selection_.chosen, won, had, view_, limits_, gone_))
    work_.won.push_back(result_id);
  NextRound next = next_round(view_, limits_, selection_, won.size(), candidates_.size(), window_);
  window_ = next.window;
  done_ = next.stop || ++round_ >= kClaimRounds;
}

NewWork WorkClaimer::finish() {
  if (!work_.asked) return std::move(work_);
  work_.quota_reached = selection_.quota_reached;
  // No candidate read means none won: asked here, inside the transaction, not after it.
  work_.only_unrunnable = !work_.quota_reached && candidates_.empty() &&
                          only_unrunnable_work(db_, host_.id, filter_.apps_not_runnable);
  return std::move(work_);
}

NewWork claim_new_work(Database& db, const SchedulerRequest& req, const HostRow& host, bool host_created,
                       const std::vector<HostResultRow>& in_progress, int64_t now,
                       const SchedulerContext& ctx, HostVersions& versions) {
  WorkClaimer claimer(db, req, host, in_progress, now, ctx, versions);
  if (claimer.done()) return claimer.finish();  // the host row was written with the reports
  while (!claimer.done()) {
    // The round's claims in one statement (choose_work picks one result per workunit).
    std::vector<int64_t> won = claim_unsent_results(db, claimer.next_claims());
    claimer.settle({won.begin(), won.end()});
  }
  NewWork work = claimer.finish();
  // The RPC's one write of the host row, after the claims: the workunit and result rows are
  // locked before the host's, as the validator locks them.
  int claimed = static_cast<int>(work.won.size());
  if (plan_host_row_write(host_created, true) == HostRowWrite::Inserted) {
    if (claimed > 0) add_results_sent(db, host.id, now, claimed);
  } else {
    update_host(db, host, now, claimed);
  }
  return work;
}

void put_new_work(const NewWork& work, const SchedulerRequest& req, ResultSender& sender,
                  SchedulerReply& reply) {
  if (!work.asked) return;
  if (!sender.add(work.won).empty()) return;
  reply.messages.push_back(no_work_message(work.quota_reached, work.only_unrunnable, req.platform_name));
}

}  // namespace tharsis
