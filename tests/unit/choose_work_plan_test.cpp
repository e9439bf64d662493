// sched/lib/rpc/choose_work_plan.h: the decisions around work selection in the choose work
// step: the host's view, claim order, what a round of claims leaves, when to read again.
#include "sched/lib/rpc/choose_work_plan.h"

#include <gtest/gtest.h>

#include <limits>

namespace tharsis {
namespace {

CandidateResult candidate(int64_t result_id, int64_t workunit_id, double fpops = 1e12, double disk = 100) {
  CandidateResult c;
  c.result_id = result_id;
  c.workunit_id = workunit_id;
  c.rsc_fpops_est = fpops;
  c.rsc_disk_bound = disk;
  return c;
}

TEST(ChooseWorkPlan, ARequestAsksForWorkWithSecondsAndWithoutDontSendWork) {
  SchedulerRequest req;
  EXPECT_FALSE(asks_for_work(req));
  req.cpu_req_secs = 10;  // the older field counts too
  EXPECT_TRUE(asks_for_work(req));
  EXPECT_EQ(requested_seconds(req), 10);
  req.work_req_seconds = 30;
  EXPECT_EQ(requested_seconds(req), 30);
  req.dont_send_work = true;
  EXPECT_FALSE(asks_for_work(req));
}

TEST(ChooseWorkPlan, TheHostsViewHasSaneSpeedAndCpusAndWhatItHolds) {
  HostRow host;
  host.id = 3;
  host.p_fpops = 0;  // unknown
  host.p_ncpus = 0;
  host.m_nbytes = 4e9;
  host.d_free = 1e10;
  host.nresults_today = 7;
  host.max_results_day = 20;
  HostResultRow held;
  held.workunit_id = 55;
  HostForScheduling view =
      scheduling_view(host, {"linux", "linux32"}, 600, {held}, {HeldFile{"in_1", 10, 1}});
  EXPECT_EQ(view.id, 3);
  EXPECT_EQ(view.flops, 1e9);
  EXPECT_EQ(view.ncpus, 1);
  EXPECT_EQ(view.platforms, (std::set<std::string>{"linux", "linux32"}));
  EXPECT_EQ(view.work_request_seconds, 600);
  EXPECT_EQ(view.results_sent_today, 7);
  EXPECT_EQ(view.daily_quota, 20);
  EXPECT_EQ(view.workunits_held, std::set<int64_t>{55});
  EXPECT_EQ(view.files_held, std::set<std::string>{"in_1"});
  SendFilter filter = send_filter(view, {9}, 1234);
  EXPECT_EQ(filter.host_id, 3);
  EXPECT_EQ(filter.apps_not_runnable, std::vector<int64_t>{9});
  EXPECT_EQ(filter.memory_bytes, 4e9);
  EXPECT_EQ(filter.disk_free_bytes, 1e10);
  EXPECT_EQ(filter.flops, 1e9);
  EXPECT_EQ(filter.now, 1234);
}

TEST(ChooseWorkPlan, ClaimsGoInWorkunitOrder) {
  auto ordered = claim_order({candidate(1, 30), candidate(2, 10), candidate(3, 20)});
  ASSERT_EQ(ordered.size(), 3u);
  EXPECT_EQ(ordered[0].workunit_id, 10);
  EXPECT_EQ(ordered[1].workunit_id, 20);
  EXPECT_EQ(ordered[2].workunit_id, 30);
}

TEST(ChooseWorkPlan, ARoundsWonSendsCoverTheRequestAndLostOnesAreDropped) {
  HostForScheduling view;
  view.flops = 1e9;
  view.ncpus = 2;
  view.work_request_seconds = 5000;
  view.disk_free_bytes = 1000;
  SelectionLimits limits{10, 100};
  std::set<int64_t> gone;
  std::vector<CandidateResult> chosen{candidate(1, 11), candidate(2, 12), candidate(3, 13)};
  // 1 won, 2 lost to another process, 3 refused: the host had a result of workunit 13.
  auto sent = settle_round(chosen, {1}, {13}, view, limits, gone);
  EXPECT_EQ(sent, std::vector<int64_t>{1});
  EXPECT_EQ(gone, (std::set<int64_t>{1, 2, 3}));
  EXPECT_EQ(view.workunits_held, (std::set<int64_t>{11, 13}));  // 12 may be chosen again in another result
  EXPECT_DOUBLE_EQ(view.work_request_seconds, 5000 - 1000.0 / 2);
  EXPECT_EQ(view.disk_free_bytes, 900);
  EXPECT_EQ(view.results_sent_today, 1);
  EXPECT_EQ(limits.max_results_per_reply, 9);
}

TEST(ChooseWorkPlan, RoundsStopWhenTheRequestIsCoveredOrALimitReached) {
  HostForScheduling view;
  view.work_request_seconds = 100;
  SelectionLimits limits{10, 100};
  Selection selection;
  selection.chosen = {candidate(1, 1)};
  EXPECT_FALSE(next_round(view, limits, selection, 0, kFirstCandidates, kFirstCandidates).stop);
  view.work_request_seconds = 0;
  EXPECT_TRUE(next_round(view, limits, selection, 0, kFirstCandidates, kFirstCandidates).stop);
  view.work_request_seconds = 100;
  limits.max_results_per_reply = 0;
  EXPECT_TRUE(next_round(view, limits, selection, 0, kFirstCandidates, kFirstCandidates).stop);
  limits.max_results_per_reply = 10;
  selection.quota_reached = true;
  EXPECT_TRUE(next_round(view, limits, selection, 0, kFirstCandidates, kFirstCandidates).stop);
}

TEST(ChooseWorkPlan, ALostClaimRereadsTheSameWindow) {
  HostForScheduling view;
  view.work_request_seconds = 100;
  Selection selection;
  selection.chosen = {candidate(1, 1), candidate(2, 2)};
  NextRound next = next_round(view, SelectionLimits{10, 100}, selection, 1, 5, kFirstCandidates);
  EXPECT_FALSE(next.stop);
  EXPECT_EQ(next.window, kFirstCandidates);
}

// A full window that did not cover the request widens one step: a small first window to
// the usual one, that to the wide one, the wide one never.
TEST(ChooseWorkPlan, AFullWindowThatDidNotCoverTheRequestWidensOneStep) {
  HostForScheduling view;
  view.work_request_seconds = 100;
  Selection selection;
  selection.chosen = {candidate(1, 1)};
  SelectionLimits limits{10, 100};
  NextRound next = next_round(view, limits, selection, 1, kFewestFirstCandidates, kFewestFirstCandidates);
  EXPECT_FALSE(next.stop);
  EXPECT_EQ(next.window, kFirstCandidates);
  next = next_round(view, limits, selection, 1, kFirstCandidates, kFirstCandidates);
  EXPECT_FALSE(next.stop);
  EXPECT_EQ(next.window, kCandidatesPerRequest);
  EXPECT_TRUE(next_round(view, limits, selection, 1, kCandidatesPerRequest, kCandidatesPerRequest).stop);
  // A window that was not full held all there is.
  EXPECT_TRUE(
      next_round(view, limits, selection, 1, kFewestFirstCandidates - 1, kFewestFirstCandidates).stop);
  EXPECT_TRUE(next_round(view, limits, selection, 1, kFirstCandidates - 1, kFirstCandidates).stop);
}

TEST(ChooseWorkPlan, TheQueueHeadsJobSizeIsTheMedianOfARead) {
  EXPECT_EQ(head_job_fpops({}), 0);
  EXPECT_EQ(head_job_fpops({candidate(1, 1, 5e9)}), 5e9);
  EXPECT_EQ(head_job_fpops({candidate(1, 1, 9e12), candidate(2, 2, 1e9), candidate(3, 3, 4e9)}), 4e9);
}

// A 2-CPU host of 1e9 flops: a job of 1e10 fpops runs 10 s, 5 s of the request's seconds.
TEST(ChooseWorkPlan, TheFirstWindowIsTwiceTheJobsTheRequestTakesWithinItsBounds) {
  HostForScheduling view;
  view.flops = 1e9;
  view.ncpus = 2;
  SelectionLimits limits{50, 1000};
  view.work_request_seconds = 1;  // one job: the fewest
  EXPECT_EQ(first_window(view, limits, 1e10), kFewestFirstCandidates);
  view.work_request_seconds = 30;  // six jobs
  EXPECT_EQ(first_window(view, limits, 1e10), 12);
  view.work_request_seconds = 3600;  // many: the usual window, no more
  EXPECT_EQ(first_window(view, limits, 1e10), kFirstCandidates);
  view.work_request_seconds = 30;
  EXPECT_EQ(first_window(view, SelectionLimits{2, 1000}, 1e10), kFewestFirstCandidates);  // the reply's room
  EXPECT_EQ(first_window(view, SelectionLimits{3, 1000}, 1e10), 6);
  // Nothing known of the queue head, or nonsense: the usual window.
  EXPECT_EQ(first_window(view, limits, 0), kFirstCandidates);
  EXPECT_EQ(first_window(view, limits, -1), kFirstCandidates);
  EXPECT_EQ(first_window(view, limits, std::numeric_limits<double>::quiet_NaN()), kFirstCandidates);
  view.flops = 0;  // unknown speed counts as 1e9
  EXPECT_EQ(first_window(view, limits, 1e10), 12);
}

TEST(ChooseWorkPlan, TheAppsOnlyQueryKeepsTheHostAndAppsAndLiftsEveryOtherBound) {
  SendFilter filter = apps_only_filter(3, {7, 8});
  EXPECT_EQ(filter.host_id, 3);
  EXPECT_EQ(filter.apps_not_runnable, (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(filter.memory_bytes, 0);  // no memory bound
  EXPECT_GE(filter.disk_free_bytes, 1e300);
  EXPECT_GE(filter.flops, 1e300);
  EXPECT_EQ(filter.now, std::numeric_limits<int64_t>::max());
}

TEST(ChooseWorkPlan, AReplyWithoutWorkSaysWhy) {
  EXPECT_EQ(no_work_message(true, true, "p").text, "This computer has reached its daily task limit");
  ReplyMessage platform = no_work_message(false, true, "arm-linux");
  EXPECT_EQ(platform.priority, MessagePriority::Notice);
  EXPECT_EQ(platform.text, "No application is available for your platform arm-linux");
  EXPECT_EQ(no_work_message(false, false, "p").text, "No tasks are available");
  EXPECT_EQ(no_work_message(false, false, "p").priority, MessagePriority::Low);
}

}  // namespace
}  // namespace tharsis
