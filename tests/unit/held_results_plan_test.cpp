// sched/lib/rpc/held_results_plan.h: which results a host holds it must abort, and which
// it lost and gets again.
#include "sched/lib/rpc/held_results_plan.h"

#include <gtest/gtest.h>

namespace tharsis::held_results_plan_test {
namespace {

constexpr int64_t kHost = 4;
constexpr int64_t kNow = 100000;

HostResultRow at_host(const std::string& name, ServerState state = ServerState::InProgress) {
  HostResultRow r;
  r.result_id = static_cast<int64_t>(name.size()) * 10 + name.back();
  r.name = name;
  r.hostid = kHost;
  r.server_state = state;
  r.report_deadline = kNow + 3600;
  return r;
}

HeldResultsInput holding(std::vector<HostResultRow> in_progress, std::vector<std::string> held) {
  HeldResultsInput in;
  in.host_id = kHost;
  in.now = kNow;
  in.have_other_results = true;
  in.in_progress = std::move(in_progress);
  in.held = std::move(held);
  in.looked_up.resize(in.held.size());
  return in;
}

TEST(HeldResultsPlan, AResultOfAFailedWorkunitIsAbortedAtOnce) {
  HostResultRow r = at_host("a");
  r.wu_error_mask = 8;
  HeldResultsPlan plan = plan_held_results(holding({r}, {"a"}));
  EXPECT_EQ(plan.aborts, std::vector<std::string>{"a"});
  EXPECT_TRUE(plan.aborts_if_not_started.empty());
  EXPECT_TRUE(plan.lost.empty());
}

TEST(HeldResultsPlan, AResultNoLongerNeededIsAbortedOnlyIfNotStarted) {
  HostResultRow r = at_host("a");
  r.wu_canonical_resultid = 77;
  HeldResultsPlan plan = plan_held_results(holding({r}, {"a"}));
  EXPECT_TRUE(plan.aborts.empty());
  EXPECT_EQ(plan.aborts_if_not_started, std::vector<std::string>{"a"});
}

TEST(HeldResultsPlan, AnOverResultIsAbortedButALateOneOfAnOpenWorkunitOnlyIfNotStarted) {
  HeldResultsInput in = holding({}, {"over", "late"});
  HostResultRow over = at_host("over", ServerState::Over);
  over.outcome = Outcome::Success;
  HostResultRow late = at_host("late", ServerState::Over);
  late.outcome = Outcome::NoReply;  // timed out; its late report may still help
  in.looked_up = {over, late};
  HeldResultsPlan plan = plan_held_results(in);
  EXPECT_EQ(plan.aborts, std::vector<std::string>{"over"});
  EXPECT_EQ(plan.aborts_if_not_started, std::vector<std::string>{"late"});
}

TEST(HeldResultsPlan, AnotherHostsOrAnUnknownResultIsLeftAlone) {
  HeldResultsInput in = holding({}, {"theirs", "unknown"});
  HostResultRow theirs = at_host("theirs", ServerState::Over);
  theirs.hostid = kHost + 1;
  theirs.wu_error_mask = 8;
  in.looked_up = {theirs, std::nullopt};
  HeldResultsPlan plan = plan_held_results(in);
  EXPECT_TRUE(plan.aborts.empty());
  EXPECT_TRUE(plan.aborts_if_not_started.empty());
}

TEST(HeldResultsPlan, AResultInProgressNeitherHeldNorReportedIsLost) {
  HeldResultsInput in = holding({at_host("held"), at_host("lost"), at_host("reported")}, {"held"});
  in.reported = {"reported"};
  HeldResultsPlan plan = plan_held_results(in);
  ASSERT_EQ(plan.lost.size(), 1u);
  EXPECT_EQ(plan.lost[0].name, "lost");
  EXPECT_TRUE(plan.aborts.empty());
}

TEST(HeldResultsPlan, AResultPastItsDeadlineIsNotResent) {
  HostResultRow due = at_host("due");
  due.report_deadline = kNow;
  EXPECT_TRUE(plan_held_results(holding({due}, {})).lost.empty());
}

TEST(HeldResultsPlan, WithoutTheListOfHeldResultsNothingIsLost) {
  HeldResultsInput in = holding({at_host("a")}, {});
  in.have_other_results = false;
  EXPECT_TRUE(plan_held_results(in).lost.empty());
  in.have_other_results = true;
  EXPECT_EQ(plan_held_results(in).lost.size(), 1u);
}

}  // namespace
}  // namespace tharsis::held_results_plan_test
