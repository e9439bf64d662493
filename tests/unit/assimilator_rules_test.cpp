// The assimilator's rules (daemons/assimilator/assimilator_rules.h): assimilate, retry, or
// withdraw a canonical result whose files are not what it reported — and the withdrawal
// leaves a state the law's invariant checker accepts.
#include "daemons/assimilator/assimilator_rules.h"

#include <gtest/gtest.h>

#include <map>

#include "tests/unit/backend_rows_fixture.h"
#include "tools/lib/invariants.h"

namespace tharsis::assimilator_rules_test {
namespace {

using test::make_wu;
using test::success;

constexpr int64_t kNow = 5000;

// Quorum 2 of 3: 101 canonical, 102 agreeing, 103 outvoted, 104 still out.
struct Validated {
  WorkunitRow wu = make_wu(2, 3);
  std::vector<ResultRow> results;
  Validated() {
    wu.canonical_resultid = 101;
    wu.canonical_credit = 10;
    wu.assimilate_state = AssimilateState::Ready;
    wu.transition_time = 1100;
    results = {success(101, ValidateState::Valid), success(102, ValidateState::Valid),
               success(103, ValidateState::Invalid, "41"), test::in_progress(104, 1100)};
    results[0].granted_credit = 10;
    results[1].granted_credit = 10;
  }
};

std::map<int64_t, ResultRow> rows_after(const std::vector<ResultRow>& before, const AssimilationPlan& plan) {
  std::map<int64_t, ResultRow> rows;
  for (const auto& r : before) rows[r.id] = r;
  for (const auto& u : plan.result_updates) rows[u.after.id] = u.after;
  return rows;
}

TEST(AssimilatorRules, Assimilator_MatchingOutputsAreAssimilatedAndFileDeletionScheduled) {
  Validated v;
  AssimilationPlan plan = plan_assimilation(v.wu, v.results, CanonicalOutputs::Match, kNow);
  EXPECT_EQ(plan.action, AssimilationAction::Assimilate);
  EXPECT_EQ(plan.workunit.assimilate_state, AssimilateState::Done);
  EXPECT_EQ(plan.workunit.transition_time, kNow);
  EXPECT_EQ(plan.workunit.canonical_resultid, 101);
  EXPECT_TRUE(plan.result_updates.empty());
}

TEST(AssimilatorRules, Assimilator_OnlyReadyWorkunitsAreTouched) {
  Validated v;
  v.wu.assimilate_state = AssimilateState::Done;
  EXPECT_EQ(plan_assimilation(v.wu, v.results, CanonicalOutputs::Mismatch, kNow).action,
            AssimilationAction::None);
}

TEST(AssimilatorRules, Assimilator_UnreadableCanonicalOutputIsRetriedLater) {
  Validated v;
  AssimilationPlan plan = plan_assimilation(v.wu, v.results, CanonicalOutputs::Unreadable, kNow);
  EXPECT_EQ(plan.action, AssimilationAction::RetryLater);
  EXPECT_EQ(plan.workunit.assimilate_state, AssimilateState::Ready);
}

TEST(AssimilatorRules, Assimilator_ErrorWorkunitIsAssimilatedWithoutCanonical) {
  WorkunitRow wu = make_wu();
  wu.error_mask = kWuErrorTooManyErrorResults;
  wu.assimilate_state = AssimilateState::Ready;
  AssimilationPlan plan =
      plan_assimilation(wu, {test::over(101, Outcome::ClientError)}, CanonicalOutputs::Match, kNow);
  EXPECT_EQ(plan.action, AssimilationAction::Assimilate);
}

TEST(AssimilatorRules, Assimilator_ForgedCanonicalOutputIsWithdrawnAndTheWorkunitRevalidated) {
  Validated v;
  AssimilationPlan plan = plan_assimilation(v.wu, v.results, CanonicalOutputs::Mismatch, kNow);
  ASSERT_EQ(plan.action, AssimilationAction::WithdrawCanonical);
  const WorkunitRow& w = plan.workunit;
  EXPECT_EQ(w.canonical_resultid, 0);
  EXPECT_EQ(w.canonical_credit, 0);
  EXPECT_EQ(w.assimilate_state, AssimilateState::Init) << "nothing assimilated";
  EXPECT_EQ(w.transition_time, kNow) << "the transitioner replaces the withdrawn result";
  EXPECT_FALSE(w.need_validate) << "the transitioner's to set";
  auto rows = rows_after(v.results, plan);
  EXPECT_EQ(rows[101].outcome, Outcome::ValidateError);
  EXPECT_EQ(rows[101].validate_state, ValidateState::Error);
  EXPECT_EQ(rows[101].granted_credit, 0) << "the forger's credit is taken back";
  EXPECT_EQ(rows[102].validate_state, ValidateState::Init) << "weighed again";
  EXPECT_EQ(rows[102].granted_credit, 0) << "granted again when it is found valid";
  EXPECT_EQ(rows[103].validate_state, ValidateState::Init) << "outvoted by a consensus that is gone";
  EXPECT_EQ(rows[104].server_state, ServerState::InProgress) << "untouched";
  EXPECT_EQ(plan.result_updates.size(), 3u);
  for (const auto& u : plan.result_updates) EXPECT_EQ(u.before.id, u.after.id);
}

TEST(AssimilatorRules, Assimilator_WithdrawalTakesBackTheConsensusCredit) {
  Validated v;
  v.results[0].hostid = 1;
  v.results[0].userid = 11;
  v.results[1].hostid = 2;
  v.results[1].userid = 12;
  AssimilationPlan plan = plan_assimilation(v.wu, v.results, CanonicalOutputs::Mismatch, kNow);
  ASSERT_EQ(plan.credit_changes.size(), 2u);
  EXPECT_EQ(plan.credit_changes[0].host_id, 1);
  EXPECT_EQ(plan.credit_changes[0].user_id, 11);
  EXPECT_EQ(plan.credit_changes[0].credit, -10);
  EXPECT_EQ(plan.credit_changes[1].host_id, 2);
  EXPECT_EQ(plan.credit_changes[1].credit, -10);
  EXPECT_TRUE(plan_assimilation(v.wu, v.results, CanonicalOutputs::Match, kNow).credit_changes.empty())
      << "an assimilated workunit keeps its credit";
}

TEST(AssimilatorRules, Assimilator_CanonicalResultIsFoundAmongTheResults) {
  Validated v;
  ASSERT_NE(canonical_result(v.wu, v.results), nullptr);
  EXPECT_EQ(canonical_result(v.wu, v.results)->id, 101);
  v.wu.canonical_resultid = 999;
  EXPECT_EQ(canonical_result(v.wu, v.results), nullptr) << "not among the rows read";
  v.wu.canonical_resultid = 0;
  EXPECT_EQ(canonical_result(v.wu, v.results), nullptr) << "an error workunit has none";
  // A canonical result not among the rows cannot be checked: it is assimilated as read.
  v.wu.canonical_resultid = 999;
  EXPECT_EQ(plan_assimilation(v.wu, v.results, CanonicalOutputs::Mismatch, kNow).action,
            AssimilationAction::Assimilate);
}

TEST(AssimilatorRules, Assimilator_WithdrawalKeepsEveryInstantInvariant) {
  Validated v;
  AssimilationPlan plan = plan_assimilation(v.wu, v.results, CanonicalOutputs::Mismatch, kNow);
  std::vector<ResultRow> after;
  for (const auto& [id, row] : rows_after(v.results, plan)) after.push_back(row);
  auto violations = check_workunit_invariants(plan.workunit, after, kNow);
  EXPECT_TRUE(violations.empty()) << format_violations(violations);
}

TEST(AssimilatorRules, Assimilator_WithdrawalLeavesErrorBitsAndRoundsToTheTransitioner) {
  Validated v;
  v.wu.error_mask = kWuErrorCancelled;  // cancelled after validation, before assimilation
  AssimilationPlan plan = plan_assimilation(v.wu, v.results, CanonicalOutputs::Mismatch, kNow);
  ASSERT_EQ(plan.action, AssimilationAction::WithdrawCanonical);
  EXPECT_EQ(plan.workunit.error_mask, kWuErrorCancelled) << "the transitioner ends it in error";
  EXPECT_EQ(plan.workunit.assimilate_state, AssimilateState::Init);
}

}  // namespace
}  // namespace tharsis::assimilator_rules_test
