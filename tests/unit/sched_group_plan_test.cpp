// Which requests join a group (sched/lib/rpc/group_plan.h).
#include <gtest/gtest.h>

#include "sched/lib/rpc/group_plan.h"

namespace tharsis {
namespace {

SchedulerRequest request(int64_t hostid, const std::string& authenticator = "0123abcd", int seqno = 3) {
  SchedulerRequest req;
  req.hostid = hostid;
  req.authenticator = authenticator;
  req.rpc_seqno = seqno;
  return req;
}

TEST(SchedGroupPlan, OnlyWellFormedRequestsNamingTheirHostWithAPlainAuthenticatorJoinOncePerHost) {
  std::vector<std::optional<SchedulerRequest>> requests{
      request(1),
      std::nullopt,                  // malformed
      request(0),                    // a new host
      request(2, "key with space"),  // not plain
      request(3, std::string(255, 'a')),
      request(4, ""),
      request(1),                // its host's second request
      request(5, "key\"quote"),  // printable: joins (JSON-escaped)
      request(6),
  };
  EXPECT_EQ(group_members(requests), (std::vector<size_t>{0, 7, 8}));
}

TEST(SchedGroupPlan, ARequestRefusedByItsSeqnoIsLeftAlone) {
  std::vector<std::optional<SchedulerRequest>> requests{request(1, "k", -1), request(2), request(3)};
  EXPECT_EQ(group_members(requests), (std::vector<size_t>{1, 2}));
}

TEST(SchedGroupPlan, FewerThanTwoMakeNoGroupAndAGroupHasABound) {
  EXPECT_TRUE(group_members({request(1)}).empty());
  EXPECT_TRUE(group_members({request(1), request(1), std::nullopt}).empty());
  std::vector<std::optional<SchedulerRequest>> many;
  for (int64_t h = 1; h <= static_cast<int64_t>(kMaxGroupRequests) + 5; ++h) many.push_back(request(h));
  auto members = group_members(many);
  ASSERT_EQ(members.size(), kMaxGroupRequests);
  EXPECT_EQ(members.back(), kMaxGroupRequests - 1);
}

}  // namespace
}  // namespace tharsis
