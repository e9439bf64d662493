// The graph scheduler's pure rules: operand state after a job, cancel, host preference,
// graph state, FATAL reach, and the seed's two-pass reassignment after lost data.
#include "daemons/graph_scheduler/graph_scheduler_rules.h"

#include <gtest/gtest.h>

namespace tharsis::graph_scheduler_rules_test {
namespace {

using S = OperandState;

WorkunitRow job(int64_t canonical, int error_mask) {
  WorkunitRow wu;
  wu.canonical_resultid = canonical;
  wu.error_mask = error_mask;
  wu.assimilate_state = AssimilateState::Done;
  return wu;
}

TEST(GraphRules, JobEndDecidesFinishedFatalOrCancelled) {
  EXPECT_EQ(state_after_job(S::Running, job(7, 0)), S::Finished);
  EXPECT_EQ(state_after_job(S::Ready, job(7, 0)), S::Finished);
  EXPECT_EQ(state_after_job(S::Running, job(0, kWuErrorTooManyErrorResults)), S::Fatal);
  EXPECT_EQ(state_after_job(S::Running, job(0, kWuErrorCancelled)), S::Cancelled);
  EXPECT_EQ(state_after_job(S::Cancelling, job(7, 0)), S::Cancelled) << "cancelled work is not used";
}

TEST(GraphRules, JobEndsOnceAssimilatedAndACancelledOneOnceNoHostStillRunsIt) {
  OperandRow running;
  running.state = S::Running;
  WorkunitRow wu = job(7, 0);
  EXPECT_TRUE(job_has_ended(running, wu, {}));
  wu.assimilate_state = AssimilateState::Ready;
  EXPECT_FALSE(job_has_ended(running, wu, {})) << "not assimilated yet";
  wu.assimilate_state = AssimilateState::Done;
  OperandRow cancelling;
  cancelling.state = S::Cancelling;
  ResultRow out;
  out.server_state = ServerState::InProgress;
  ResultRow over;
  over.server_state = ServerState::Over;
  EXPECT_FALSE(job_has_ended(cancelling, wu, {over, out})) << "a host still computes it";
  EXPECT_TRUE(job_has_ended(cancelling, wu, {over}));
  for (S other : {S::Unscheduled, S::Finished, S::Freed, S::Fatal, S::Cancelled}) {
    OperandRow o;
    o.state = other;
    EXPECT_FALSE(job_has_ended(o, wu, {})) << code(other);
  }
}

TEST(GraphRules, OutputFreedOnceEverySuccessorHasFinished) {
  OperandRow finished;
  finished.state = S::Finished;
  OperandRow a, b;
  a.state = S::Finished;
  b.state = S::Running;
  EXPECT_FALSE(output_may_be_freed(finished, {a, b}));
  b.state = S::Freed;
  EXPECT_TRUE(output_may_be_freed(finished, {a, b}));
  EXPECT_TRUE(output_may_be_freed(finished, {})) << "no successor needs it";
  OperandRow running;
  running.state = S::Running;
  EXPECT_FALSE(output_may_be_freed(running, {a})) << "only FINISHED output is freed";
}

TEST(GraphRules, CancelStopsWhatRunsAndReleasesWhatFinished) {
  EXPECT_EQ(state_on_cancel(S::Unscheduled), S::Cancelled);
  EXPECT_EQ(state_on_cancel(S::Ready), S::Cancelling);
  EXPECT_EQ(state_on_cancel(S::Running), S::Cancelling);
  EXPECT_EQ(state_on_cancel(S::Finished), S::Freed);
  for (S final_state : {S::Freed, S::Fatal, S::Cancelled, S::Cancelling}) {
    EXPECT_EQ(state_on_cancel(final_state), final_state);
    EXPECT_FALSE(cancel_marks_workunit(final_state));
  }
  EXPECT_TRUE(cancel_marks_workunit(S::Unscheduled));
  EXPECT_TRUE(cancel_marks_workunit(S::Running));
  EXPECT_FALSE(cancel_marks_workunit(S::Finished));
}

TEST(GraphRules, PreferredHostHoldsMostInputBytes) {
  EXPECT_EQ(preferred_host({}), 0);
  EXPECT_EQ(preferred_host({{0, 100}}), 0) << "unknown host";
  EXPECT_EQ(preferred_host({{5, 100}, {3, 60}, {3, 60}}), 3) << "bytes add up per host";
  EXPECT_EQ(preferred_host({{9, 10}, {4, 10}}), 4) << "ties: lower id";
}

TEST(GraphRules, ReservationReleasedWhenTheHostCanTakeNoWork) {
  const int64_t now = 1'800'000'000;
  const int today = static_cast<int>(now / 86400);
  PreferredHostView host{true, now - 60, 10, today, 0};
  EXPECT_EQ(reservation_verdict(host, 500, 3600, now), ReservationVerdict::Keep);
  EXPECT_EQ(reservation_verdict(PreferredHostView{}, 500, 3600, now), ReservationVerdict::HostGone);
  PreferredHostView spent = host;
  spent.nresults_today = 500;
  EXPECT_EQ(reservation_verdict(spent, 500, 3600, now), ReservationVerdict::QuotaSpent);
  spent.nresults_day = today - 1;
  EXPECT_EQ(reservation_verdict(spent, 500, 3600, now), ReservationVerdict::Keep) << "yesterday's count";
  PreferredHostView own_quota = host;
  own_quota.max_results_day = 10;  // lowered after errors
  EXPECT_EQ(reservation_verdict(own_quota, 500, 3600, now), ReservationVerdict::QuotaSpent);
  PreferredHostView silent = host;
  silent.rpc_time = now - 3601;
  EXPECT_EQ(reservation_verdict(silent, 500, 3600, now), ReservationVerdict::HostSilent);
  silent.rpc_time = now - 3600;
  EXPECT_EQ(reservation_verdict(silent, 500, 3600, now), ReservationVerdict::Keep);
}

TEST(GraphRules, GraphStateFollowsItsOperands) {
  EXPECT_EQ(graph_state_after(GraphState::Running, {{S::Finished, 2}, {S::Freed, 3}}), GraphState::Done);
  EXPECT_EQ(graph_state_after(GraphState::Running, {{S::Finished, 2}, {S::Running, 1}}), std::nullopt);
  EXPECT_EQ(graph_state_after(GraphState::Running, {}), std::nullopt);
  EXPECT_EQ(graph_state_after(GraphState::Running, {{S::Fatal, 1}, {S::Running, 1}}), std::nullopt)
      << "other branches still run";
  EXPECT_EQ(graph_state_after(GraphState::Running, {{S::Fatal, 1}, {S::Cancelled, 2}, {S::Finished, 1}}),
            GraphState::Failed);
  EXPECT_EQ(graph_state_after(GraphState::Cancelling, {{S::Cancelling, 1}, {S::Cancelled, 2}}), std::nullopt);
  EXPECT_EQ(graph_state_after(GraphState::Cancelling, {{S::Freed, 1}, {S::Cancelled, 2}}),
            GraphState::Cancelled);
  EXPECT_EQ(graph_state_after(GraphState::Done, {{S::Running, 1}}), std::nullopt);
}

TEST(GraphRules, AFailedOrCancelledGraphSweepsTheCopiesOfWhatProducedOutput) {
  auto operand = [](int64_t id, S state, int64_t workunit, const std::string& output) {
    OperandRow o;
    o.id = id;
    o.state = state;
    o.workunitid = workunit;
    o.output_file = output;
    return o;
  };
  const std::vector<OperandRow> operands = {
      operand(1, S::Finished, 11, "w11_0_r0"),
      operand(2, S::Freed, 12, "w12_0_r0"),
      operand(3, S::Cancelled, 13, ""),
      operand(4, S::Fatal, 14, ""),
      operand(5, S::Finished, 0, std::string("jf_") + std::string(32, 'a')),  // an uploaded chunk
  };
  for (GraphState final_state : {GraphState::Failed, GraphState::Cancelled}) {
    std::vector<int64_t> ids;
    for (const OperandRow* o : producers_of_leftover_copies(final_state, operands)) ids.push_back(o->id);
    EXPECT_EQ(ids, (std::vector<int64_t>{1, 2})) << "state " << code(final_state);
  }
  for (GraphState other : {GraphState::Done, GraphState::Running, GraphState::Cancelling})
    EXPECT_TRUE(producers_of_leftover_copies(other, operands).empty()) << "state " << code(other);
}

TEST(GraphRules, DescendantsFollowEdgesTransitively) {
  std::multimap<int64_t, int64_t> edges{{1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}, {6, 5}};
  EXPECT_EQ(descendants(edges, 1), (std::set<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(descendants(edges, 5), std::set<int64_t>{});
  EXPECT_EQ(descendants(edges, 6), std::set<int64_t>{5});
}

// a, b -> c -> d ; e -> d.   (d needs c and e)
std::map<int64_t, ReassignNode> chain() {
  std::map<int64_t, ReassignNode> g;
  g[1] = {S::Freed, false, {}};
  g[2] = {S::Freed, false, {}};
  g[3] = {S::Finished, false, {1, 2}};
  g[5] = {S::Finished, false, {}};
  g[4] = {S::Unscheduled, false, {3, 5}};
  return g;
}

TEST(GraphRules, ReassignRerunsOnlyTheLostProducer) {
  auto g = chain();
  g[5].output_lost = true;
  ReassignPlan plan = plan_reassign(g, {4});
  EXPECT_EQ(plan.rerun, std::set<int64_t>{5});
  EXPECT_EQ(plan.held, std::set<int64_t>{4});
}

TEST(GraphRules, ReassignRecursesThroughFreedPredecessors) {
  auto g = chain();
  g[3].output_lost = true;  // c's output is gone and a, b freed theirs: all three run again
  ReassignPlan plan = plan_reassign(g, {4});
  EXPECT_EQ(plan.rerun, (std::set<int64_t>{1, 2, 3}));
  EXPECT_EQ(plan.held, std::set<int64_t>{4});
}

TEST(GraphRules, ReassignRestartsAStartedConsumer) {
  auto g = chain();
  g[4].state = S::Running;  // its host failed to download a lost input
  g[5].output_lost = true;
  ReassignPlan plan = plan_reassign(g, {4});
  EXPECT_EQ(plan.rerun, (std::set<int64_t>{4, 5}));
  EXPECT_TRUE(plan.held.empty());
}

TEST(GraphRules, ReassignLeavesProducersThatStillRun) {
  auto g = chain();
  g[3].state = S::Running;  // still producing: nothing to redo there
  ReassignPlan plan = plan_reassign(g, {4});
  EXPECT_TRUE(plan.rerun.empty());
  EXPECT_EQ(plan.held, std::set<int64_t>{4});
}

}  // namespace
}  // namespace tharsis::graph_scheduler_rules_test
