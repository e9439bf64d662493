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

void send_new_work(Database& db, const SchedulerRequest& req, const HostRow& host, bool host_created,
                   const std::vector<HostResultRow>& in_progress, int64_t now, const SchedulerContext& ctx,
                   ResultSender& sender, SchedulerReply& reply) {
  if (!asks_for_work(req)) return;  // the host row was written with the reports
  bool host_written = plan_host_row_write(host_created, true) == HostRowWrite::Inserted;
  HostForScheduling view =
      scheduling_view(host, platforms_of(req), requested_seconds(req), in_progress, req.held_files);

  std::map<int64_t, int64_t> version_of_result;  // candidate result id -> app version to send it with
  SendFilter filter = send_filter(view, sender.versions().apps_not_runnable(), now);
  // Read inside the claiming transaction, locking the rows read and passing over those
  // another request holds: concurrent requests take different candidates, so a claim is
  // lost only to a rule the read cannot see (a host's own concurrent request, another
  // Galera node).
  auto lock_candidates = [&](Database& d, int limit) {
    std::vector<CandidateResult> out;
    filter.disk_free_bytes = view.disk_free_bytes;  // less what this request was sent so far
    for (const auto& row : lock_send_candidates(d, filter, limit)) {
      const auto& choice = sender.versions().for_app(row.appid);
      out.push_back(candidate_of(row, choice.version ? choice.version->platform : ""));
      if (choice.version) version_of_result[row.result_id] = choice.version->row.id;
    }
    return out;
  };
  // Neither window holds a workunit the host already had a result of (the query passes
  // over them), so a host that holds results of the first thousand workunits still sees
  // the ones after.
  int window = kFirstCandidates;
  std::vector<CandidateResult> candidates;
  SelectionLimits limits{ctx.config.max_wus_to_send, ctx.config.daily_result_quota};
  Selection selection;
  int sent = 0;
  std::set<int64_t> gone;  // chosen in an earlier round: not chosen again
  for (int round = 0; round < kClaimRounds; ++round) {
    // One transaction reads and locks the round's candidates, claims its choice and counts
    // it against the daily quota.
    std::set<int64_t> won, had;
    db.transaction([&](Database& d) {
      won.clear();
      had.clear();
      candidates = lock_candidates(d, window);
      std::vector<CandidateResult> open;
      for (const auto& c : candidates) {
        if (!gone.count(c.result_id)) open.push_back(c);
      }
      selection = choose_work(view, open, limits, now);
      for (const auto& c : claim_order(selection.chosen)) {
        auto version = version_of_result.find(c.result_id);
        if (version == version_of_result.end()) continue;  // nothing to run it with (an empty platform name)
        SendClaim claim{c.result_id, c.workunit_id, host.id,        host.userid,
                        now,         c.delay_bound, version->second};
        if (claim_unsent_result(d, claim)) {
          won.insert(c.result_id);
        } else if (host_has_result_of(d, c.workunit_id, host.id)) {
          // Never two results of one workunit to one host (BOINC's rule: a quorum needs independent hosts),
          // also after it reported the first: workunits_held knows only the results it holds. (Found by the
          // chaos run: a graph operand's two results, reserved for one host, both went to it.) The claim
          // refused it; asked only now, the common path pays nothing.
          had.insert(c.workunit_id);
        }
      }
      if (won.empty()) return;
      // After the claims: the workunit and result rows are locked before the host's, as
      // the validator locks them.
      if (host_written) {
        add_results_sent(d, host.id, now, static_cast<int>(won.size()));
      } else {
        update_host(d, host, now, static_cast<int>(won.size()));
      }
    });
    if (!won.empty()) host_written = true;
    for (int64_t result_id : settle_round(selection.chosen, won, had, view, limits, gone)) {
      if (sender.add(result_id)) ++sent;
    }
    NextRound next = next_round(view, limits, selection, won.size(), candidates.size(), window);
    if (next.stop) break;
    window = next.window;
  }
  if (!host_written) update_host(db, host, now, 0);
  if (sent == 0) {
    bool only_unrunnable = !selection.quota_reached && candidates.empty() &&
                           only_unrunnable_work(db, host.id, filter.apps_not_runnable);
    reply.messages.push_back(no_work_message(selection.quota_reached, only_unrunnable, req.platform_name));
  }
}

}  // namespace tharsis
