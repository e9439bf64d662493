// sched/lib/rpc/reply_step.h: the project's, host's and account's parts of a scheduler
// reply (the results' part is the integration tests': it needs stored descriptions).
#include <gtest/gtest.h>

#include "sched/lib/rpc/reply_step.h"

namespace tharsis {
namespace {

TEST(SchedReplyStep, TheProjectIsNamedByItsLongNameElseItsShortOne) {
  ProjectConfig config;
  config.name = "tharsis";
  config.master_url = "http://example.org/tharsis/";
  config.request_delay = 7;
  SchedulerReply reply = base_reply(config);
  EXPECT_EQ(reply.project_name, "tharsis");
  EXPECT_EQ(reply.master_url, "http://example.org/tharsis/");
  EXPECT_EQ(reply.request_delay, 7);
  config.long_name = "Tharsis at home";
  EXPECT_EQ(project_name(config), "Tharsis at home");
}

TEST(SchedReplyStep, EveryReportIsAckedAndOnlyAHostIdTheClientDidNotSendIsAnnounced) {
  SchedulerRequest req;
  req.hostid = 5;
  req.results.resize(2);
  req.results[0].name = "r1";
  req.results[1].name = "r2";
  HostRow host;
  host.id = 5;
  host.total_credit = 12;
  host.create_time = 99;
  UserRow user;
  user.id = 3;
  user.name = "ada";
  SchedulerReply reply;
  add_host_and_account(reply, req, host, user);
  EXPECT_EQ(reply.result_acks, (std::vector<std::string>{"r1", "r2"}));
  EXPECT_EQ(reply.hostid, 0);  // the client's own id: a copy would make itself a new CPID
  EXPECT_TRUE(reply.include_host_fields);
  EXPECT_EQ(reply.host_total_credit, 12);
  EXPECT_EQ(reply.host_create_time, 99);
  ASSERT_TRUE(reply.user);
  EXPECT_EQ(reply.user->userid, 3);
  EXPECT_EQ(reply.user->name, "ada");

  host.id = 8;  // a new record, or one found by CPID
  SchedulerReply announced;
  add_host_and_account(announced, req, host, user);
  EXPECT_EQ(announced.hostid, 8);
}

}  // namespace
}  // namespace tharsis
