// Numbers of any magnitude survive our own render -> parse round trips (found by
// fuzz/scheduler_request_fuzz.cpp; reproducer fuzz/regressions/scheduler_request/
// p-fpops-1e100): format_double writes fixed-point, up to ~330 bytes, and the reader used
// to refuse number text over 64 bytes, so a decayed credit of 1e-70 in our reply made
// tharsis-client drop the whole reply, and a request with p_fpops 1e100 was refused.
#include <gtest/gtest.h>

#include <limits>

#include "lib/protocol/client_side.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/scheduler_request.h"

namespace tharsis {
namespace {

TEST(ProtocolNumberText, RequestWithHugeAndTinyNumbersRoundTrips) {
  SchedulerRequest request;
  request.host.p_fpops = 1e100;
  request.host.d_total = std::numeric_limits<double>::max();
  request.net_stats.avg_down = 1e-300;
  request.net_stats.avg_up = std::numeric_limits<double>::denorm_min();
  request.time_stats.now = -std::numeric_limits<double>::max();
  auto back = parse_scheduler_request(render_scheduler_request(request), ProtocolLimits{});
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, request);
}

TEST(ProtocolNumberText, ReplyWithADecayedCreditReadsBack) {
  SchedulerReply reply;
  reply.project_name = "p";
  reply.include_host_fields = true;
  reply.host_expavg_credit = 1e-70;
  ReplyUser user;
  user.expavg_credit = 4.9e-324;
  user.total_credit = 1e300;
  reply.user = user;
  auto back = parse_scheduler_reply(render_scheduler_reply(reply));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->host_expavg_credit, 1e-70);
  ASSERT_TRUE(back->user.has_value());
  EXPECT_EQ(back->user->expavg_credit, 4.9e-324);
  EXPECT_EQ(back->user->total_credit, 1e300);
}

TEST(ProtocolNumberText, NumberTextStaysBounded) {
  auto request = parse_scheduler_request("<scheduler_request><host_info><p_fpops>" + std::string(401, '1') +
                                             "</p_fpops></host_info></scheduler_request>",
                                         ProtocolLimits{});
  ASSERT_FALSE(request.ok());
  EXPECT_NE(request.error().find("longer than the limit of 400 bytes"), std::string::npos) << request.error();
}

}  // namespace
}  // namespace tharsis
