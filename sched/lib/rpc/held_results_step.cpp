// Implementation of sched/lib/rpc/held_results_step.h.
#include "sched/lib/rpc/held_results_step.h"

#include <set>
#include <string>

#include "db/result_store.h"
#include "sched/lib/rpc/held_results_plan.h"

namespace tharsis {

bool reads_in_progress(const SchedulerRequest& req, bool asks_for_work) {
  return req.have_other_results || asks_for_work;
}

HeldResults take_held_results(Database& db, const SchedulerRequest& req, const HostRow& host,
                              bool asks_for_work, int64_t now) {
  // Read once for this step and the choose work step.
  std::vector<HostResultRow> in_progress;
  if (reads_in_progress(req, asks_for_work)) in_progress = fetch_in_progress_results_at_host(db, host.id);
  return take_held_results_read(db, req, host, now, std::move(in_progress));
}

HeldResults take_held_results_read(Database& db, const SchedulerRequest& req, const HostRow& host,
                                   int64_t now, std::vector<HostResultRow> in_progress) {
  HeldResultsInput input;
  input.host_id = host.id;
  input.now = now;
  input.have_other_results = req.have_other_results;
  input.in_progress = std::move(in_progress);
  std::set<std::string> in_progress_names;
  for (const auto& r : input.in_progress) in_progress_names.insert(r.name);
  for (const auto& other : req.other_results) {
    input.held.push_back(other.name);
    // Over, or unknown, or another host's: rare, one query each.
    input.looked_up.push_back(
        in_progress_names.count(other.name) ? std::nullopt : fetch_host_result_by_name(db, other.name));
  }
  for (const auto& reported : req.results) input.reported.push_back(reported.name);

  HeldResultsPlan plan = plan_held_results(input);
  HeldResults held;
  held.aborts = std::move(plan.aborts);
  held.aborts_if_not_started = std::move(plan.aborts_if_not_started);
  for (const auto& result : plan.lost) {
    if (refresh_sent_result(db, result.result_id, result.workunit_id, host.id, now, result.delay_bound))
      held.resent.emplace_back(result.result_id, result.name);
  }
  held.in_progress = std::move(input.in_progress);
  return held;
}

std::vector<int64_t> resent_ids(const HeldResults& held) {
  std::vector<int64_t> ids;
  for (const auto& resent : held.resent) ids.push_back(resent.first);
  return ids;
}

void put_held_results(const HeldResults& held, ResultSender& sender, SchedulerReply& reply) {
  reply.result_aborts.insert(reply.result_aborts.end(), held.aborts.begin(), held.aborts.end());
  reply.result_aborts_if_not_started.insert(reply.result_aborts_if_not_started.end(),
                                            held.aborts_if_not_started.begin(),
                                            held.aborts_if_not_started.end());
  std::set<int64_t> added;
  for (int64_t id : sender.add(resent_ids(held))) added.insert(id);
  for (const auto& [result_id, name] : held.resent) {
    if (added.count(result_id)) reply.messages.push_back({MessagePriority::Low, "Resent lost task " + name});
  }
}

}  // namespace tharsis
