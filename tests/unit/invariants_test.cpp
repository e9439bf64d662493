// The instant invariants of the back-end law: each check accepts consistent states and
// names the rule and the ids when it is broken.
#include "tools/lib/invariants.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/unit/backend_rows_fixture.h"

namespace tharsis::invariants_test {
namespace {

using test::in_progress;
using test::make_wu;
using test::over;
using test::success;
using test::unsent;

constexpr int64_t kNow = 500;  // before the fixtures' deadlines (1100)

std::set<std::string> rules_of(const WorkunitRow& wu, const std::vector<ResultRow>& results) {
  std::set<std::string> rules;
  for (const InvariantViolation& v : check_workunit_invariants(wu, results, kNow)) rules.insert(v.rule);
  return rules;
}

// A workunit validated, assimilated and cleaned up: every invariant holds.
struct Settled {
  WorkunitRow wu = make_wu();
  std::vector<ResultRow> results{success(101, ValidateState::Valid), success(102, ValidateState::Invalid),
                                 over(103, Outcome::NoReply)};
  Settled() {
    wu.canonical_resultid = 101;
    wu.assimilate_state = AssimilateState::Done;
    wu.file_delete_state = FileDeleteState::Done;
    wu.transition_time = kTransitionNever;
    results[0].file_delete_state = FileDeleteState::Done;
    results[1].file_delete_state = FileDeleteState::Done;
  }
};

TEST(Invariants, Invariants_AcceptConsistentStates) {
  Settled s;
  EXPECT_EQ(format_violations(check_workunit_invariants(s.wu, s.results, kNow)), "");
  // Fresh, in flight, and errored workunits too.
  WorkunitRow fresh = make_wu();
  EXPECT_TRUE(rules_of(fresh, {}).empty());
  WorkunitRow flying = make_wu();
  flying.transition_time = 1100;
  EXPECT_TRUE(rules_of(flying, {unsent(101), in_progress(102, 1100), success(103)}).empty());
  WorkunitRow failed = make_wu();
  failed.error_mask = kWuErrorTooManyErrorResults;
  failed.assimilate_state = AssimilateState::Ready;
  failed.transition_time = kTransitionNever;
  ResultRow error_result = over(102, Outcome::ValidateError);
  error_result.validate_state = ValidateState::Error;
  EXPECT_TRUE(rules_of(failed, {success(101, ValidateState::NoCheck), error_result}).empty());
}

TEST(Invariants, Invariants_OutcomeDefinedIffOver) {
  Settled s;
  s.results[2].outcome = Outcome::Init;
  EXPECT_TRUE(rules_of(s.wu, s.results).count("outcome_iff_over"));
  std::vector<ResultRow> r{unsent(101)};
  r[0].outcome = Outcome::Success;
  EXPECT_TRUE(rules_of(make_wu(), r).count("outcome_iff_over"));
}

TEST(Invariants, Invariants_ValidateStateDefinedOnlyForSuccess) {
  Settled s;
  s.results[2].validate_state = ValidateState::Inconclusive;
  EXPECT_TRUE(rules_of(s.wu, s.results).count("validate_state_defined"));
  Settled t;
  t.results[1].outcome = Outcome::ValidateError;  // must carry validate_state ERROR
  EXPECT_TRUE(rules_of(t.wu, t.results).count("validate_state_defined"));
}

TEST(Invariants, Invariants_CanonicalResultIsSuccessAndValid) {
  Settled s;
  s.results[0].validate_state = ValidateState::Invalid;
  EXPECT_TRUE(rules_of(s.wu, s.results).count("canonical_is_valid"));
  Settled t;
  t.wu.canonical_resultid = 999;
  auto v = check_workunit_invariants(t.wu, t.results, kNow);
  ASSERT_FALSE(v.empty());
  EXPECT_NE(format_violations(v).find("999"), std::string::npos);
}

TEST(Invariants, Invariants_CanonicalImpliesAssimilationStartedAndNothingUnsent) {
  Settled s;
  s.wu.assimilate_state = AssimilateState::Init;
  s.wu.file_delete_state = FileDeleteState::Init;
  EXPECT_TRUE(rules_of(s.wu, s.results).count("canonical_is_assimilated"));
  Settled t;
  t.wu.file_delete_state = FileDeleteState::Init;
  t.results.push_back(unsent(104));
  EXPECT_TRUE(rules_of(t.wu, t.results).count("no_unsent_after_canonical"));
}

TEST(Invariants, Invariants_AssimilationNeedsCanonicalOrError) {
  WorkunitRow wu = make_wu();
  wu.assimilate_state = AssimilateState::Ready;
  EXPECT_TRUE(rules_of(wu, {}).count("assimilate_needs_reason"));
  wu.error_mask = kWuErrorCouldntSendResult;
  EXPECT_FALSE(rules_of(wu, {}).count("assimilate_needs_reason"));
}

TEST(Invariants, Invariants_InputFilesDeletedOnlyWhenAllOverAndAssimilated) {
  Settled s;
  s.wu.assimilate_state = AssimilateState::Ready;
  EXPECT_TRUE(rules_of(s.wu, s.results).count("input_files_after_all_over"));
  Settled t;
  t.results.push_back(in_progress(104, 5000));
  t.wu.transition_time = 5000;
  EXPECT_TRUE(rules_of(t.wu, t.results).count("input_files_after_all_over"));
}

TEST(Invariants, Invariants_ResultFilesDeletedOnlyAfterAssimilation) {
  WorkunitRow wu = make_wu();
  wu.error_mask = kWuErrorCouldntSendResult;
  wu.assimilate_state = AssimilateState::Ready;
  ResultRow r = over(101, Outcome::ClientError);
  r.file_delete_state = FileDeleteState::Ready;
  EXPECT_TRUE(rules_of(wu, {r}).count("result_files_after_assimilation"));
  wu.assimilate_state = AssimilateState::Done;
  EXPECT_FALSE(rules_of(wu, {r}).count("result_files_after_assimilation"));
}

TEST(Invariants, Invariants_CanonicalFilesLastToGo) {
  Settled s;
  s.wu.file_delete_state = FileDeleteState::Init;
  s.results.push_back(in_progress(104, 5000));
  s.wu.transition_time = 5000;
  EXPECT_TRUE(rules_of(s.wu, s.results).count("canonical_files_last"));
}

TEST(Invariants, Invariants_InProgressResultHasTimeoutScheduled) {
  WorkunitRow wu = make_wu();
  wu.transition_time = kTransitionNever;
  EXPECT_TRUE(rules_of(wu, {in_progress(101, 1100)}).count("timeout_scheduled"));
  wu.transition_time = 1101;
  EXPECT_FALSE(rules_of(wu, {in_progress(101, 1100)}).count("timeout_scheduled"));
  wu.transition_time = 1102;
  EXPECT_TRUE(rules_of(wu, {in_progress(101, 1100)}).count("timeout_scheduled"));
  // Already due (the transitioner is behind): the time-out will be seen.
  EXPECT_TRUE(check_workunit_invariants(wu, {in_progress(101, 1100)}, 1102).empty());
}

TEST(Invariants, Invariants_VerdictsNeedCanonicalAndNoCheckNeedsError) {
  WorkunitRow wu = make_wu();
  EXPECT_TRUE(rules_of(wu, {success(101, ValidateState::Valid)}).count("verdict_needs_canonical"));
  EXPECT_TRUE(rules_of(wu, {success(101, ValidateState::TooLate)}).count("verdict_needs_canonical"));
  EXPECT_TRUE(rules_of(wu, {success(101, ValidateState::NoCheck)}).count("no_check_needs_error"));
}

TEST(Invariants, Invariants_ResultsBelongToWorkunitWithDistinctNames) {
  WorkunitRow wu = make_wu();
  ResultRow a = unsent(101);
  ResultRow b = unsent(102);
  b.name = a.name;
  b.workunitid = 8;
  auto rules = rules_of(wu, {a, b});
  EXPECT_TRUE(rules.count("distinct_names"));
  EXPECT_TRUE(rules.count("result_of_workunit"));
}

TEST(Invariants, Invariants_SentResultHasDeadlineAndTotalBounded) {
  WorkunitRow wu = make_wu();
  wu.max_total_results = 1;
  ResultRow r = in_progress(101, 0);
  auto rules = rules_of(wu, {r, unsent(102)});
  EXPECT_TRUE(rules.count("deadline_when_sent"));
  EXPECT_TRUE(rules.count("total_results_bounded"));
}

}  // namespace
}  // namespace tharsis::invariants_test
