// sched/lib/rpc/host_plan.h: which stored host a request speaks for, the row it gets, and
// where the RPC's one write of the host row goes.
#include <gtest/gtest.h>

#include "sched/lib/rpc/host_plan.h"

namespace tharsis {
namespace {

HostRow stored_host(int64_t id, int64_t userid, int seqno) {
  HostRow h;
  h.id = id;
  h.userid = userid;
  h.rpc_seqno = seqno;
  return h;
}

TEST(HostPlan, TheNamedHostOfThisAccountIsUsed) {
  EXPECT_EQ(judge_named_host(stored_host(5, 7, 10), 7, 11), NamedHost::Use);
  EXPECT_EQ(judge_named_host(stored_host(5, 7, 10), 7, 10), NamedHost::Use);
}

TEST(HostPlan, AnotherAccountsOrAMissingHostIsLookedUpByCpid) {
  EXPECT_EQ(judge_named_host(stored_host(5, 8, 10), 7, 11), NamedHost::NotThisAccount);
  EXPECT_EQ(judge_named_host(std::nullopt, 7, 11), NamedHost::NotThisAccount);
  // Another account's host is not judged by its count: it is not this client's.
  EXPECT_EQ(judge_named_host(stored_host(5, 8, 10), 7, 2), NamedHost::NotThisAccount);
}

TEST(HostPlan, ALowerSeqnoOfThisAccountsHostIsACopiedState) {
  EXPECT_EQ(judge_named_host(stored_host(5, 7, 10), 7, 9), NamedHost::CopiedState);
}

TEST(HostPlan, ANewHostIsCreatedNowAndAnnouncedWithItsCountAtZero) {
  SchedulerRequest req;
  req.hostid = 0;
  req.rpc_seqno = 4;
  req.platform_name = "x86_64-pc-linux-gnu";
  req.host.p_ncpus = 8;
  req.host.p_fpops = 3e9;
  HostRow h = describe_host(std::nullopt, req, 7, 86400 * 100 + 5);
  EXPECT_EQ(h.id, 0);
  EXPECT_EQ(h.userid, 7);
  EXPECT_EQ(h.create_time, 86400 * 100 + 5);
  EXPECT_EQ(h.rpc_time, 86400 * 100 + 5);
  EXPECT_EQ(h.rpc_seqno, 0);
  EXPECT_EQ(h.platform_name, "x86_64-pc-linux-gnu");
  EXPECT_EQ(h.p_ncpus, 8);
  EXPECT_EQ(h.p_fpops, 3e9);
}

TEST(HostPlan, AKnownHostKeepsItsCreditAndCreationAndStoresTheRequestsCount) {
  SchedulerRequest req;
  req.hostid = 5;
  req.rpc_seqno = 11;
  HostRow found = stored_host(5, 7, 10);
  found.create_time = 1000;
  found.total_credit = 55;
  found.max_results_day = 40;
  HostRow h = describe_host(found, req, 7, 90000);
  EXPECT_EQ(h.create_time, 1000);
  EXPECT_EQ(h.total_credit, 55);
  EXPECT_EQ(h.max_results_day, 40);
  EXPECT_EQ(h.rpc_seqno, 11);
  // Found by CPID (the request named another id or none): announced, the count restarts.
  req.hostid = 0;
  EXPECT_EQ(describe_host(found, req, 7, 90000).rpc_seqno, 0);
}

TEST(HostPlan, TodaysCountStartsAgainOnANewDay) {
  SchedulerRequest req;
  req.hostid = 5;
  HostRow found = stored_host(5, 7, 0);
  found.nresults_today = 30;
  found.nresults_day = 100;
  EXPECT_EQ(describe_host(found, req, 7, 100 * 86400 + 3600).nresults_today, 30);
  EXPECT_EQ(describe_host(found, req, 7, 101 * 86400).nresults_today, 0);
}

TEST(HostPlan, LongHostTextIsCutToTheColumnAtACharacterBoundary) {
  SchedulerRequest req;
  std::string long_text;
  for (int i = 0; i < 300; ++i) long_text += "\xc3\xa9";  // é, two bytes each
  req.host.os_version = long_text;
  req.host.host_cpid = std::string(400, 'a');
  HostRow h = describe_host(std::nullopt, req, 7, 0);
  EXPECT_EQ(h.os_version, long_text.substr(0, 2 * 254));
  EXPECT_EQ(h.host_cpid, std::string(254, 'a'));
  EXPECT_EQ(host_text("short"), "short");
}

TEST(HostPlan, TheHostRowIsWrittenOncePerRpc) {
  EXPECT_EQ(plan_host_row_write(true, true), HostRowWrite::Inserted);
  EXPECT_EQ(plan_host_row_write(true, false), HostRowWrite::Inserted);
  EXPECT_EQ(plan_host_row_write(false, true), HostRowWrite::WithFirstClaim);
  EXPECT_EQ(plan_host_row_write(false, false), HostRowWrite::WithReports);
}

}  // namespace
}  // namespace tharsis
