// The rule deciding whether a result still takes its host's uploads and report.
#include "sched/lib/result_acceptance.h"

#include <gtest/gtest.h>

namespace tharsis {
namespace {

ResultAcceptanceView over(Outcome outcome) {
  ResultAcceptanceView r;
  r.server_state = ServerState::Over;
  r.outcome = outcome;
  return r;
}

TEST(ResultAcceptance, InProgressTakesOutput) {
  ResultAcceptanceView r;
  r.server_state = ServerState::InProgress;
  EXPECT_EQ(result_acceptance(r), ResultAcceptance::InProgress);
}

TEST(ResultAcceptance, UnsentTakesNothing) { EXPECT_FALSE(takes_output(ResultAcceptanceView{})); }

TEST(ResultAcceptance, ReportedResultNeverTakesOutputAgain) {
  for (Outcome o : {Outcome::Success, Outcome::ClientError, Outcome::CouldntSend, Outcome::DidntNeed,
                    Outcome::ValidateError, Outcome::Init}) {
    EXPECT_EQ(result_acceptance(over(o)), ResultAcceptance::Refused) << static_cast<int>(o);
  }
}

TEST(ResultAcceptance, TimedOutResultIsLateWhileWorkunitIsOpen) {
  EXPECT_EQ(result_acceptance(over(Outcome::NoReply)), ResultAcceptance::Late);
  EXPECT_EQ(result_acceptance(over(Outcome::ClientDetached)), ResultAcceptance::Late);
}

TEST(ResultAcceptance, TimedOutResultRefusedOnceWorkunitIsDecided) {
  auto canonical = over(Outcome::NoReply);
  canonical.wu_canonical_resultid = 7;
  EXPECT_EQ(result_acceptance(canonical), ResultAcceptance::Refused);
  auto failed = over(Outcome::NoReply);
  failed.wu_error_mask = kWuErrorTooManyErrorResults;
  EXPECT_EQ(result_acceptance(failed), ResultAcceptance::Refused);
  auto assimilating = over(Outcome::NoReply);
  assimilating.wu_assimilate_state = AssimilateState::Ready;
  EXPECT_EQ(result_acceptance(assimilating), ResultAcceptance::Refused);
}

}  // namespace
}  // namespace tharsis
