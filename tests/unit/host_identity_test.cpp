// sched/lib/host_identity.h: BOINC's rpc_seqno rule (issue 13 item 5: a stale or negative
// seqno was taken as it came, and the stored one went backwards).
#include "sched/lib/host_identity.h"

#include <gtest/gtest.h>

namespace tharsis {
namespace {

TEST(HostIdentity, ACountAtOrAboveTheStoredOneIsTheSameHost) {
  EXPECT_EQ(judge_rpc_seqno(17, 16), SeqnoVerdict::SameHost);
  EXPECT_EQ(judge_rpc_seqno(16, 16), SeqnoVerdict::SameHost);
  EXPECT_EQ(judge_rpc_seqno(1, 0), SeqnoVerdict::SameHost);
  EXPECT_EQ(judge_rpc_seqno(0, 0), SeqnoVerdict::SameHost);
}

TEST(HostIdentity, ALowerCountIsACopyOfTheClientState) {
  EXPECT_EQ(judge_rpc_seqno(3, 16), SeqnoVerdict::CopiedState);
  EXPECT_EQ(judge_rpc_seqno(1, 16), SeqnoVerdict::CopiedState);
  EXPECT_EQ(judge_rpc_seqno(0, 1), SeqnoVerdict::CopiedState);
}

TEST(HostIdentity, ANegativeCountIsRefusedWhateverIsStored) {
  EXPECT_EQ(judge_rpc_seqno(-5, 16), SeqnoVerdict::Refused);
  EXPECT_EQ(judge_rpc_seqno(-1, std::nullopt), SeqnoVerdict::Refused);
  EXPECT_EQ(judge_rpc_seqno(-2147483647 - 1, -3), SeqnoVerdict::Refused);
}

TEST(HostIdentity, WithoutAKnownHostOnlyTheSignCounts) {
  EXPECT_EQ(judge_rpc_seqno(0, std::nullopt), SeqnoVerdict::SameHost);
  EXPECT_EQ(judge_rpc_seqno(99, std::nullopt), SeqnoVerdict::SameHost);
}

TEST(HostIdentity, AnAnnouncedHostStartsItsCountAtZero) {
  EXPECT_EQ(rpc_seqno_to_store(3, true), 0);
  EXPECT_EQ(rpc_seqno_to_store(3, false), 3);
}

}  // namespace
}  // namespace tharsis
