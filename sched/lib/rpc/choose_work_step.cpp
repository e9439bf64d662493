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

NewWork claim_new_work(Database& db, const SchedulerRequest& req, const HostRow& host, bool host_created,
                       const std::vector<HostResultRow>& in_progress, int64_t now,
                       const SchedulerContext& ctx, HostVersions& versions) {
  NewWork work;
  if (!asks_for_work(req)) return work;  // the host row was written with the reports
  work.asked = true;
  bool host_written = plan_host_row_write(host_created, true) == HostRowWrite::Inserted;
  HostForScheduling view =
      scheduling_view(host, platforms_of(req), requested_seconds(req), in_progress, req.held_files);

  std::map<int64_t, int64_t> version_of_result;  // candidate result id -> app version to send it with
  SendFilter filter = send_filter(view, versions.apps_not_runnable(), now);
  // Read with locks, passing over the rows another request holds: concurrent requests take
  // different candidates, so a claim is lost only to a rule the read cannot see (a host's
  // own concurrent request, another Galera node).
  auto lock_candidates = [&](int limit) {
    std::vector<CandidateResult> out;
    filter.disk_free_bytes = view.disk_free_bytes;  // less what this request was sent so far
    for (const auto& row : lock_send_candidates(db, filter, limit)) {
      const auto& choice = versions.for_app(row.appid);
      out.push_back(candidate_of(row, choice.version ? choice.version->platform : ""));
      if (choice.version) version_of_result[row.result_id] = choice.version->row.id;
    }
    return out;
  };
  // From this process's cache (candidate_cache.h), when it has one: the rows the host can
  // take, in queue order, read and locked from the queue only when the cache holds fewer
  // than the window for it (the rest of the queue is other processes' parts, or beyond
  // what the cache holds).
  CandidateCache* cache = ctx.candidate_cache;
  auto cached_candidates = [&](int limit, const std::set<int64_t>& gone) {
    if (cache->refill_due(now)) refill_candidate_cache(db, *cache, now);
    std::vector<CandidateResult> out;  // each row the host takes, built once
    cache->offer(static_cast<size_t>(limit), host.id, [&](const SendCandidateRow& r) {
      if (gone.count(r.result_id)) return false;
      const auto& choice = versions.for_app(r.appid);
      if (!choice.version) return false;
      CandidateResult candidate = candidate_of(r, choice.version->platform);
      if (check_candidate(view, candidate, now) != SkipReason::None) return false;
      version_of_result[r.result_id] = choice.version->row.id;
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
  };
  // Neither window holds a workunit the host already had a result of (the query passes
  // over them), so a host that holds results of the first thousand workunits still sees
  // the ones after.
  std::vector<CandidateResult> candidates;
  SelectionLimits limits{ctx.config.max_wus_to_send, ctx.config.daily_result_quota};
  int window = first_window(view, limits, ctx.queue_head ? ctx.queue_head->job_fpops : 0);
  Selection selection;
  std::set<int64_t> gone;  // chosen in an earlier round: not chosen again
  for (int round = 0; round < kClaimRounds; ++round) {
    candidates = cache ? cached_candidates(window, gone) : lock_candidates(window);
    if (ctx.queue_head && !candidates.empty()) ctx.queue_head->job_fpops = head_job_fpops(candidates);
    std::vector<CandidateResult> open;
    for (const auto& c : candidates) {
      if (!gone.count(c.result_id)) open.push_back(c);
    }
    selection = choose_work(view, open, limits, now);
    std::vector<SendClaim> claims;
    for (const auto& c : claim_order(selection.chosen)) {
      auto version = version_of_result.find(c.result_id);
      if (version == version_of_result.end()) continue;  // nothing to run it with (an empty platform name)
      claims.push_back(
          {c.result_id, c.workunit_id, host.id, host.userid, now, c.delay_bound, version->second});
    }
    // The round's claims in one statement (choose_work picks one result per workunit).
    std::vector<int64_t> won_ids = claim_unsent_results(db, claims);
    std::set<int64_t> won(won_ids.begin(), won_ids.end()), had;
    for (const auto& claim : claims) {
      // Never two results of one workunit to one host (BOINC's rule: a quorum needs independent hosts),
      // also after it reported the first: workunits_held knows only the results it holds. (Found by the
      // chaos run: a graph operand's two results, reserved for one host, both went to it.) The claim
      // refused it; asked only now, the common path pays nothing.
      if (!won.count(claim.result_id) && host_has_result_of(db, claim.workunit_id, host.id))
        had.insert(claim.workunit_id);
      if (!cache) continue;
      if (had.count(claim.workunit_id)) {
        cache->refused(claim.workunit_id, host.id);  // the row stays for other hosts
      } else {
        auto details =
            cache->claimed(claim.result_id, claim.workunit_id, host.id, won.count(claim.result_id) > 0);
        if (details) {
          details->report_deadline = claim.now + claim.delay_bound;  // as the claim wrote it
          work.details.emplace(claim.result_id, std::move(*details));
        }
      }
    }
    for (int64_t result_id : settle_round(selection.chosen, won, had, view, limits, gone))
      work.won.push_back(result_id);
    NextRound next = next_round(view, limits, selection, won.size(), candidates.size(), window);
    if (next.stop) break;
    window = next.window;
  }
  // The RPC's one write of the host row, after the claims: the workunit and result rows are
  // locked before the host's, as the validator locks them.
  int claimed = static_cast<int>(work.won.size());
  if (host_written) {
    if (claimed > 0) add_results_sent(db, host.id, now, claimed);
  } else {
    update_host(db, host, now, claimed);
  }
  work.quota_reached = selection.quota_reached;
  // No candidate read means none won: asked here, inside the transaction, not after it.
  work.only_unrunnable = !work.quota_reached && candidates.empty() &&
                         only_unrunnable_work(db, host.id, filter.apps_not_runnable);
  return work;
}

void put_new_work(const NewWork& work, const SchedulerRequest& req, ResultSender& sender,
                  SchedulerReply& reply) {
  if (!work.asked) return;
  if (!sender.add(work.won).empty()) return;
  reply.messages.push_back(no_work_message(work.quota_reached, work.only_unrunnable, req.platform_name));
}

}  // namespace tharsis
