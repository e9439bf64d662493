// The validator's rules of the back-end law, one test per rule (plan_validation).
#include "daemons/validator/validator_rules.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/unit/backend_rows_fixture.h"

namespace tharsis::validator_rules_test {
namespace {

using test::after;
using test::in_progress;
using test::make_wu;
using test::over;
using test::success;
using test::unsent;

// Outputs agree when their text (xml_doc_out) is equal; "garbage" cannot be read.
FunctionComparator by_answer() {
  return FunctionComparator(
      [](const ResultRow& r) {
        return r.xml_doc_out == "garbage" ? ReadOutcome::PermanentError : ReadOutcome::Ok;
      },
      [](const ResultRow& a, const ResultRow& b) {
        return a.xml_doc_out == b.xml_doc_out ? CompareOutcome::Match : CompareOutcome::Mismatch;
      });
}

WorkunitRow needing_validation(int min_quorum = 2, int target = 2) {
  WorkunitRow wu = make_wu(min_quorum, target);
  wu.need_validate = true;
  wu.transition_time = kTransitionNever;
  return wu;
}

WorkunitRow with_canonical(int64_t canonical_id, double credit = 10) {
  WorkunitRow wu = needing_validation();
  wu.canonical_resultid = canonical_id;
  wu.canonical_credit = credit;
  wu.assimilate_state = AssimilateState::Ready;
  return wu;
}

// --- consensus -------------------------------------------------------------------------

TEST(ValidatorRules, Validator_FindsCanonicalWhenQuorumAgrees) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101), success(102)};
  ValidationPlan plan = plan_validation(needing_validation(), results, cmp, 500);
  EXPECT_EQ(plan.workunit.canonical_resultid, 101);
  EXPECT_EQ(after(plan, results, 101).validate_state, ValidateState::Valid);
  EXPECT_EQ(after(plan, results, 102).validate_state, ValidateState::Valid);
  EXPECT_FALSE(plan.retry_later);
}

TEST(ValidatorRules, Validator_MarksDisagreeingResultInvalidWhenConsensusFound) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101, ValidateState::Inconclusive, "wrong"),
                                 success(102, ValidateState::Inconclusive), success(103)};
  WorkunitRow wu = needing_validation(2, 3);
  ValidationPlan plan = plan_validation(wu, results, cmp, 500);
  EXPECT_EQ(plan.workunit.canonical_resultid, 102);
  EXPECT_EQ(after(plan, results, 101).validate_state, ValidateState::Invalid);
  EXPECT_EQ(after(plan, results, 103).validate_state, ValidateState::Valid);
}

TEST(ValidatorRules, Validator_CanonicalNeedsMajorityOfQuorumAgreeing) {
  EXPECT_EQ(agreeing_results_needed(1), 1);
  EXPECT_EQ(agreeing_results_needed(2), 2);
  EXPECT_EQ(agreeing_results_needed(3), 2);
  EXPECT_EQ(agreeing_results_needed(4), 3);
  FunctionComparator cmp = by_answer();
  WorkunitRow wu = needing_validation(3, 3);
  std::vector<ResultRow> two_of_three{success(101, ValidateState::Init, "a"), success(102), success(103)};
  EXPECT_EQ(plan_validation(wu, two_of_three, cmp, 5).workunit.canonical_resultid, 102);
  std::vector<ResultRow> all_differ{success(101, ValidateState::Init, "a"),
                                    success(102, ValidateState::Init, "b"), success(103)};
  EXPECT_EQ(plan_validation(wu, all_differ, cmp, 5).workunit.canonical_resultid, 0);
}

TEST(ValidatorRules, Validator_NothingHappensBelowQuorum) {
  FunctionComparator cmp = by_answer();
  WorkunitRow wu = needing_validation(3, 3);
  std::vector<ResultRow> results{success(101), success(102), in_progress(103, 5000)};
  ValidationPlan plan = plan_validation(wu, results, cmp, 5);
  EXPECT_EQ(plan.workunit.canonical_resultid, 0);
  EXPECT_TRUE(plan.result_updates.empty());
  EXPECT_FALSE(plan.workunit.need_validate);
  EXPECT_EQ(plan.workunit.transition_time, kTransitionNever);
}

TEST(ValidatorRules, Validator_CanonicalMakesAssimilateReadyOnlyFromInit) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101), success(102)};
  EXPECT_EQ(plan_validation(needing_validation(), results, cmp, 5).workunit.assimilate_state,
            AssimilateState::Ready);
}

TEST(ValidatorRules, Validator_CanonicalMarksUnsentResultsDidntNeed) {
  FunctionComparator cmp = by_answer();
  WorkunitRow wu = needing_validation(2, 4);
  std::vector<ResultRow> results{success(101), success(102), unsent(103), in_progress(104, 5000)};
  ValidationPlan plan = plan_validation(wu, results, cmp, 5);
  EXPECT_EQ(after(plan, results, 103).server_state, ServerState::Over);
  EXPECT_EQ(after(plan, results, 103).outcome, Outcome::DidntNeed);
  EXPECT_EQ(after(plan, results, 104).server_state, ServerState::InProgress);
}

TEST(ValidatorRules, Validator_CanonicalSetsTransitionTimeNow) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101), success(102), in_progress(103, 5000)};
  EXPECT_EQ(plan_validation(needing_validation(), results, cmp, 77).workunit.transition_time, 77);
}

TEST(ValidatorRules, Validator_GrantsCreditToValidResults) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101), success(102), success(103, ValidateState::Init, "x")};
  results[0].claimed_credit = 30;
  results[1].claimed_credit = 20;
  ValidationPlan plan = plan_validation(needing_validation(2, 3), results, cmp, 5);
  EXPECT_DOUBLE_EQ(plan.workunit.canonical_credit, 20);  // the lower of two claims
  ASSERT_EQ(plan.credit_grants.size(), 2u);
  std::set<int64_t> credited;
  for (const CreditGrant& g : plan.credit_grants) {
    credited.insert(g.result_id);
    EXPECT_DOUBLE_EQ(g.credit, 20);
    EXPECT_EQ(g.host_id, 1000 + g.result_id);
    EXPECT_EQ(g.user_id, 2000 + g.result_id);
  }
  EXPECT_EQ(credited, (std::set<int64_t>{101, 102}));
  EXPECT_DOUBLE_EQ(after(plan, results, 101).granted_credit, 20);
  EXPECT_DOUBLE_EQ(after(plan, results, 103).granted_credit, 0);
}

TEST(ValidatorRules, Validator_CreditIsMedianMeanOfClaims) {
  EXPECT_DOUBLE_EQ(credit_for_valid_set({}), 0);
  EXPECT_DOUBLE_EQ(credit_for_valid_set({7}), 7);
  EXPECT_DOUBLE_EQ(credit_for_valid_set({9, 4}), 4);
  EXPECT_DOUBLE_EQ(credit_for_valid_set({1000, 10, 20}), 20);
  EXPECT_DOUBLE_EQ(credit_for_valid_set({1, 10, 20, 1000}), 15);
}

// --- no consensus ----------------------------------------------------------------------

TEST(ValidatorRules, Validator_NoConsensusMarksInconclusiveAndRaisesTarget) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101, ValidateState::Init, "a"), success(102)};
  ValidationPlan plan = plan_validation(needing_validation(2, 2), results, cmp, 66);
  EXPECT_EQ(plan.workunit.canonical_resultid, 0);
  EXPECT_EQ(after(plan, results, 101).validate_state, ValidateState::Inconclusive);
  EXPECT_EQ(after(plan, results, 102).validate_state, ValidateState::Inconclusive);
  EXPECT_EQ(plan.workunit.target_nresults, 3);
  EXPECT_EQ(plan.workunit.transition_time, 66);
  EXPECT_EQ(plan.workunit.assimilate_state, AssimilateState::Init);
  EXPECT_TRUE(plan.credit_grants.empty());
}

TEST(ValidatorRules, Validator_NoConsensusKeepsTargetWhenMoreResultsAreComing) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101, ValidateState::Init, "a"), success(102),
                                 in_progress(103, 5000)};
  ValidationPlan plan = plan_validation(needing_validation(2, 3), results, cmp, 66);
  EXPECT_EQ(plan.workunit.target_nresults, 3);
  EXPECT_EQ(plan.workunit.transition_time, kTransitionNever);
}

TEST(ValidatorRules, Validator_TooManySuccessResultsWhenNoConsensus) {
  FunctionComparator cmp = by_answer();
  WorkunitRow wu = needing_validation(2, 3);
  wu.max_success_results = 2;
  std::vector<ResultRow> results{success(101, ValidateState::Inconclusive, "a"),
                                 success(102, ValidateState::Inconclusive, "b"), success(103)};
  ValidationPlan plan = plan_validation(wu, results, cmp, 88);
  EXPECT_EQ(plan.workunit.error_mask, kWuErrorTooManySuccessResults);
  EXPECT_EQ(plan.workunit.transition_time, 88);
  // At the limit it is not yet too many.
  wu.max_success_results = 3;
  EXPECT_EQ(plan_validation(wu, results, cmp, 88).workunit.error_mask, 0);
}

TEST(ValidatorRules, Validator_InconclusiveResultsJoinLaterConsensus) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101, ValidateState::Inconclusive),
                                 success(102, ValidateState::Inconclusive, "b"), success(103)};
  ValidationPlan plan = plan_validation(needing_validation(2, 3), results, cmp, 5);
  EXPECT_EQ(plan.workunit.canonical_resultid, 101);
  EXPECT_EQ(after(plan, results, 102).validate_state, ValidateState::Invalid);
}

// --- unreadable outputs and transient errors -------------------------------------------

TEST(ValidatorRules, Validator_UnreadableOutputGetsValidateError) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101, ValidateState::Init, "garbage"), success(102), success(103)};
  ValidationPlan plan = plan_validation(needing_validation(2, 3), results, cmp, 9);
  ResultRow bad = after(plan, results, 101);
  EXPECT_EQ(bad.outcome, Outcome::ValidateError);
  EXPECT_EQ(bad.validate_state, ValidateState::Error);
  EXPECT_EQ(plan.workunit.canonical_resultid, 102);
}

TEST(ValidatorRules, Validator_UnreadableOutputBelowQuorumTriggersTransitioner) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101, ValidateState::Init, "garbage"), success(102)};
  ValidationPlan plan = plan_validation(needing_validation(2, 2), results, cmp, 9);
  EXPECT_EQ(after(plan, results, 101).outcome, Outcome::ValidateError);
  EXPECT_EQ(after(plan, results, 102).validate_state, ValidateState::Inconclusive);
  EXPECT_EQ(plan.workunit.canonical_resultid, 0);
  EXPECT_EQ(plan.workunit.target_nresults, 2);
  EXPECT_EQ(plan.workunit.transition_time, 9);
}

TEST(ValidatorRules, Validator_TransientErrorDecidesNothingAndRetriesLater) {
  FunctionComparator cmp(
      [](const ResultRow& r) { return r.id == 102 ? ReadOutcome::TransientError : ReadOutcome::Ok; },
      [](const ResultRow&, const ResultRow&) { return CompareOutcome::Match; });
  std::vector<ResultRow> results{success(101, ValidateState::Init, "garbage"), success(102)};
  WorkunitRow wu = needing_validation();
  ValidationPlan plan = plan_validation(wu, results, cmp, 100);
  EXPECT_TRUE(plan.retry_later);
  EXPECT_TRUE(plan.result_updates.empty());
  EXPECT_TRUE(plan.credit_grants.empty());
  EXPECT_EQ(plan.workunit.canonical_resultid, 0);
  EXPECT_FALSE(plan.workunit.need_validate);
  EXPECT_EQ(plan.workunit.transition_time, 100 + kValidatorRetryDelay);
  wu.transition_time = 50;  // already due earlier: keep it
  EXPECT_EQ(plan_validation(wu, results, cmp, 100).workunit.transition_time, 50);
}

TEST(ValidatorRules, Validator_TransientCompareErrorDecidesNothing) {
  FunctionComparator cmp([](const ResultRow&, const ResultRow&) { return CompareOutcome::TransientError; });
  std::vector<ResultRow> results{success(101), success(102)};
  ValidationPlan plan = plan_validation(needing_validation(), results, cmp, 100);
  EXPECT_TRUE(plan.retry_later);
  EXPECT_TRUE(plan.result_updates.empty());
}

TEST(ValidatorRules, Validator_PermanentCompareErrorCountsAsMismatch) {
  FunctionComparator cmp([](const ResultRow&, const ResultRow&) { return CompareOutcome::PermanentError; });
  std::vector<ResultRow> results{success(101), success(102)};
  ValidationPlan plan = plan_validation(needing_validation(), results, cmp, 100);
  EXPECT_FALSE(plan.retry_later);
  EXPECT_EQ(plan.workunit.canonical_resultid, 0);
  EXPECT_EQ(after(plan, results, 101).validate_state, ValidateState::Inconclusive);
}

// --- stragglers after the canonical result ---------------------------------------------

TEST(ValidatorRules, Validator_ChecksStragglerAgainstCanonical) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101, ValidateState::Valid), success(102, ValidateState::Valid),
                                 success(103), success(104, ValidateState::Init, "wrong")};
  ValidationPlan plan = plan_validation(with_canonical(101, 12.5), results, cmp, 40);
  EXPECT_EQ(after(plan, results, 103).validate_state, ValidateState::Valid);
  EXPECT_DOUBLE_EQ(after(plan, results, 103).granted_credit, 12.5);
  EXPECT_EQ(after(plan, results, 104).validate_state, ValidateState::Invalid);
  ASSERT_EQ(plan.credit_grants.size(), 1u);
  EXPECT_EQ(plan.credit_grants[0].result_id, 103);
  EXPECT_EQ(plan.workunit.transition_time, 40);
  EXPECT_EQ(plan.workunit.canonical_resultid, 101);
}

TEST(ValidatorRules, Validator_StragglerTooLateWhenCanonicalFilesDeleted) {
  FunctionComparator cmp = by_answer();
  ResultRow canonical = success(101, ValidateState::Valid);
  canonical.file_delete_state = FileDeleteState::Done;
  std::vector<ResultRow> results{canonical, success(102)};
  ValidationPlan plan = plan_validation(with_canonical(101), results, cmp, 40);
  EXPECT_EQ(after(plan, results, 102).validate_state, ValidateState::TooLate);
  EXPECT_TRUE(plan.credit_grants.empty());
}

TEST(ValidatorRules, Validator_StragglerValidateErrorWhenCanonicalUnreadable) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101, ValidateState::Valid, "garbage"), success(102)};
  ValidationPlan plan = plan_validation(with_canonical(101), results, cmp, 40);
  EXPECT_EQ(after(plan, results, 102).outcome, Outcome::ValidateError);
  EXPECT_EQ(after(plan, results, 101).validate_state, ValidateState::Valid);
}

TEST(ValidatorRules, Validator_MissingCanonicalResultChangesNothing) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(102)};
  ValidationPlan plan = plan_validation(with_canonical(101), results, cmp, 40);
  EXPECT_TRUE(plan.result_updates.empty());
  EXPECT_FALSE(plan.workunit.need_validate);
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("101"), std::string::npos);
}

// --- always ----------------------------------------------------------------------------

TEST(ValidatorRules, Validator_AlwaysClearsNeedValidate) {
  FunctionComparator cmp = by_answer();
  EXPECT_FALSE(plan_validation(needing_validation(), {}, cmp, 1).workunit.need_validate);
  EXPECT_FALSE(
      plan_validation(needing_validation(), {success(101), success(102)}, cmp, 1).workunit.need_validate);
  EXPECT_FALSE(plan_validation(with_canonical(101), {success(101, ValidateState::Valid)}, cmp, 1)
                   .workunit.need_validate);
}

TEST(ValidatorRules, Validator_DoesNothingForErroredWorkunitWithoutCanonical) {
  FunctionComparator cmp = by_answer();
  WorkunitRow wu = needing_validation();
  wu.error_mask = kWuErrorTooManyErrorResults;
  std::vector<ResultRow> results{success(101), success(102)};
  ValidationPlan plan = plan_validation(wu, results, cmp, 1);
  EXPECT_EQ(plan.workunit.canonical_resultid, 0);
  EXPECT_TRUE(plan.result_updates.empty());
  EXPECT_EQ(plan.workunit.assimilate_state, AssimilateState::Init);
}

TEST(ValidatorRules, Validator_IgnoresResultsThatAreNotSuccess) {
  FunctionComparator cmp = by_answer();
  std::vector<ResultRow> results{success(101), over(102, Outcome::ClientError), over(103, Outcome::NoReply),
                                 success(104)};
  ValidationPlan plan = plan_validation(needing_validation(), results, cmp, 1);
  EXPECT_EQ(plan.workunit.canonical_resultid, 101);
  EXPECT_EQ(after(plan, results, 102).validate_state, ValidateState::Init);
  EXPECT_EQ(after(plan, results, 103).validate_state, ValidateState::Init);
}

}  // namespace
}  // namespace tharsis::validator_rules_test
