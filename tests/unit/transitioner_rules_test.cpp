// The transitioner's rules of the back-end law, one test per rule (plan_transition).
#include "daemons/transitioner/transitioner_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/unit/backend_rows_fixture.h"

namespace tharsis::transitioner_rules_test {
namespace {

using test::after;
using test::in_progress;
using test::make_wu;
using test::over;
using test::success;
using test::unsent;

WorkunitRow assimilated(WorkunitRow wu, int64_t canonical = 0) {
  wu.canonical_resultid = canonical;
  wu.assimilate_state = AssimilateState::Done;
  return wu;
}

// --- time-outs -------------------------------------------------------------------------

TEST(TransitionerRules, Transitioner_TimesOutResultPastDeadline) {
  std::vector<ResultRow> results{in_progress(101, 500), in_progress(102, 5000)};
  TransitionPlan plan = plan_transition(make_wu(), results, 1000);
  ResultRow r = after(plan, results, 101);
  EXPECT_EQ(r.server_state, ServerState::Over);
  EXPECT_EQ(r.outcome, Outcome::NoReply);
  EXPECT_EQ(after(plan, results, 102).server_state, ServerState::InProgress);
  EXPECT_EQ(plan.timed_out_result_ids, std::vector<int64_t>{101});
  EXPECT_EQ(plan.counts.timed_out, 1);
  EXPECT_EQ(plan.counts.no_reply, 1);
}

TEST(TransitionerRules, Transitioner_SetsNoReplyOnlyWhenNowPastDeadline) {
  // The seed's slip says "now < report_deadline"; the rule is now > report_deadline.
  std::vector<ResultRow> results{in_progress(101, 1000)};
  TransitionPlan at_deadline = plan_transition(make_wu(), results, 1000);
  EXPECT_EQ(after(at_deadline, results, 101).server_state, ServerState::InProgress);
  EXPECT_EQ(after(at_deadline, results, 101).outcome, Outcome::Init);
  TransitionPlan before_deadline = plan_transition(make_wu(), results, 10);
  EXPECT_EQ(after(before_deadline, results, 101).outcome, Outcome::Init);
  TransitionPlan past = plan_transition(make_wu(), results, 1001);
  EXPECT_EQ(after(past, results, 101).outcome, Outcome::NoReply);
}

TEST(TransitionerRules, Transitioner_TimedOutResultIsReplacedInSamePass) {
  std::vector<ResultRow> results{in_progress(101, 500), success(102)};
  TransitionPlan plan = plan_transition(make_wu(2, 2), results, 1000);
  ASSERT_EQ(plan.new_results.size(), 1u);
}

// --- new results -----------------------------------------------------------------------

TEST(TransitionerRules, Transitioner_CreatesInitialResultsUpToTargetNresults) {
  WorkunitRow wu = make_wu(2, 3);
  TransitionPlan plan = plan_transition(wu, {}, 1234);
  ASSERT_EQ(plan.new_results.size(), 3u);
  std::set<std::string> names;
  for (const ResultRow& r : plan.new_results) {
    names.insert(r.name);
    EXPECT_EQ(r.id, 0);
    EXPECT_EQ(r.workunitid, wu.id);
    EXPECT_EQ(r.appid, wu.appid);
    EXPECT_EQ(r.priority, wu.priority);
    EXPECT_EQ(r.create_time, 1234);
    EXPECT_EQ(r.server_state, ServerState::Unsent);
    EXPECT_EQ(r.outcome, Outcome::Init);
    EXPECT_EQ(r.validate_state, ValidateState::Init);
    EXPECT_EQ(r.file_delete_state, FileDeleteState::Init);
    EXPECT_EQ(r.report_deadline, 0);
    EXPECT_EQ(r.hostid, 0);
  }
  EXPECT_EQ(names, (std::set<std::string>{"wu7_0", "wu7_1", "wu7_2"}));
  EXPECT_EQ(plan.counts.new_results, 3);
}

TEST(TransitionerRules, Transitioner_NewResultNamesFollowLargestSuffixAndCount) {
  // Existing suffixes 0 and 5: next is 6. Foreign names count towards the minimum.
  std::vector<ResultRow> results{over(101, Outcome::ClientError), over(102, Outcome::ClientError)};
  results[0].name = "wu7_0";
  results[1].name = "wu7_5";
  TransitionPlan plan = plan_transition(make_wu(1, 1), results, 10);
  ASSERT_EQ(plan.new_results.size(), 1u);
  EXPECT_EQ(plan.new_results[0].name, "wu7_6");

  std::vector<ResultRow> odd{over(101, Outcome::ClientError), over(102, Outcome::ClientError)};
  odd[0].name = "renamed_a";
  odd[1].name = "wu7_x";
  TransitionPlan plan2 = plan_transition(make_wu(1, 2), odd, 10);
  ASSERT_EQ(plan2.new_results.size(), 2u);
  EXPECT_EQ(plan2.new_results[0].name, "wu7_2");
  EXPECT_EQ(plan2.new_results[1].name, "wu7_3");
}

TEST(TransitionerRules, Transitioner_ResultNameSuffixParsesOnlyOwnNames) {
  EXPECT_EQ(result_name_suffix("wu7", "wu7_12"), 12);
  EXPECT_EQ(result_name_suffix("wu7", "wu7_"), -1);
  EXPECT_EQ(result_name_suffix("wu7", "wu7_1a"), -1);
  EXPECT_EQ(result_name_suffix("wu7", "wu71_2"), -1);
  EXPECT_EQ(result_name_suffix("wu_7", "wu_7_3"), 3);
  EXPECT_EQ(result_name_suffix("wu7", "other_3"), -1);
}

TEST(TransitionerRules, Transitioner_TargetCountsUnsentInProgressAndNonInvalidSuccess) {
  WorkunitRow wu = make_wu(2, 5);
  wu.canonical_resultid = 0;
  std::vector<ResultRow> results{unsent(101),
                                 in_progress(102, 5000),
                                 success(103),
                                 success(104, ValidateState::Inconclusive),
                                 over(105, Outcome::ClientError),
                                 over(106, Outcome::NoReply)};
  // 5 target - 1 unsent - 1 in progress - 2 success = 1.
  EXPECT_EQ(plan_transition(wu, results, 10).new_results.size(), 1u);
  EXPECT_EQ(plan_transition(wu, results, 10).counts.success, 2);
}

TEST(TransitionerRules, Transitioner_InvalidSuccessDoesNotCountTowardsTarget) {
  // An INVALID result can only exist next to a canonical one, where nothing is created;
  // it still must not count as a success (e.g. for need_validate's quorum).
  WorkunitRow wu = make_wu(2, 2);
  wu.canonical_resultid = 101;
  wu.assimilate_state = AssimilateState::Ready;
  std::vector<ResultRow> results{success(101, ValidateState::Valid), success(102, ValidateState::Invalid)};
  EXPECT_EQ(plan_transition(wu, results, 10).counts.success, 1);
}

TEST(TransitionerRules, Transitioner_NewResultsLimitedByMaxTotalResults) {
  WorkunitRow wu = make_wu(2, 4);
  wu.max_total_results = 3;
  std::vector<ResultRow> results{over(101, Outcome::ClientError)};
  TransitionPlan plan = plan_transition(wu, results, 10);
  EXPECT_EQ(plan.new_results.size(), 2u);
  EXPECT_EQ(plan.workunit.error_mask, 0);
}

TEST(TransitionerRules, Transitioner_NoNewResultsOrErrorsOnceCanonical) {
  WorkunitRow wu = make_wu(2, 4);  // target raised above what exists
  wu.canonical_resultid = 101;
  wu.assimilate_state = AssimilateState::Ready;
  wu.max_total_results = 2;
  wu.max_error_results = 0;
  std::vector<ResultRow> results{success(101, ValidateState::Valid), over(102, Outcome::ClientError)};
  TransitionPlan plan = plan_transition(wu, results, 10);
  EXPECT_TRUE(plan.new_results.empty());
  EXPECT_EQ(plan.workunit.error_mask, 0);
}

// --- error conditions ------------------------------------------------------------------

TEST(TransitionerRules, Transitioner_SetsCouldntSendWhenAResultCouldntBeSent) {
  std::vector<ResultRow> results{over(101, Outcome::CouldntSend), unsent(102)};
  TransitionPlan plan = plan_transition(make_wu(), results, 10);
  EXPECT_EQ(plan.workunit.error_mask, kWuErrorCouldntSendResult);
  EXPECT_EQ(plan_transition(make_wu(), {unsent(102)}, 10).workunit.error_mask, 0);
}

TEST(TransitionerRules, Transitioner_SetsTooManyErrorResultsWhenErrorsExceedMax) {
  WorkunitRow wu = make_wu(1, 1);
  wu.max_error_results = 2;
  std::vector<ResultRow> two{over(101, Outcome::ClientError), over(102, Outcome::ClientError)};
  EXPECT_EQ(plan_transition(wu, two, 10).workunit.error_mask & kWuErrorTooManyErrorResults, 0);
  std::vector<ResultRow> three = two;
  three.push_back(over(103, Outcome::ValidateError));
  three.back().validate_state = ValidateState::Error;
  EXPECT_NE(plan_transition(wu, three, 10).workunit.error_mask & kWuErrorTooManyErrorResults, 0);
}

TEST(TransitionerRules, Transitioner_UserAbortCountsAsNoReplyNotError) {
  WorkunitRow wu = make_wu(1, 1);
  wu.max_error_results = 0;
  ResultRow aborted = over(101, Outcome::ClientError);
  aborted.exit_status = kExitAbortedViaGui;
  TransitionPlan plan = plan_transition(wu, {aborted}, 10);
  EXPECT_EQ(plan.counts.errors, 0);
  EXPECT_EQ(plan.counts.no_reply, 1);
  EXPECT_EQ(plan.workunit.error_mask, 0);
}

TEST(TransitionerRules, Transitioner_SetsTooManyTotalResultsWhenMoreNeededAtLimit) {
  WorkunitRow wu = make_wu(1, 1);
  wu.max_total_results = 2;
  std::vector<ResultRow> results{over(101, Outcome::NoReply), over(102, Outcome::NoReply)};
  TransitionPlan plan = plan_transition(wu, results, 10);
  EXPECT_EQ(plan.workunit.error_mask, kWuErrorTooManyTotalResults);
  EXPECT_TRUE(plan.new_results.empty());
  // At the limit but nothing needed (one still in progress): no error.
  std::vector<ResultRow> busy{over(101, Outcome::NoReply), in_progress(102, 5000)};
  EXPECT_EQ(plan_transition(wu, busy, 10).workunit.error_mask, 0);
}

TEST(TransitionerRules, Transitioner_SetsTooManyTotalResultsWhenAboveLimit) {
  WorkunitRow wu = make_wu(1, 1);
  wu.max_total_results = 1;  // lowered by the admin below what exists
  std::vector<ResultRow> results{in_progress(101, 5000), in_progress(102, 5000)};
  EXPECT_EQ(plan_transition(wu, results, 10).workunit.error_mask, kWuErrorTooManyTotalResults);
}

TEST(TransitionerRules, Transitioner_OnErrorMarksUnsentResultsDidntNeed) {
  std::vector<ResultRow> results{over(101, Outcome::CouldntSend), unsent(102), in_progress(103, 5000)};
  TransitionPlan plan = plan_transition(make_wu(), results, 10);
  ResultRow r = after(plan, results, 102);
  EXPECT_EQ(r.server_state, ServerState::Over);
  EXPECT_EQ(r.outcome, Outcome::DidntNeed);
  EXPECT_EQ(after(plan, results, 103).server_state, ServerState::InProgress);
}

TEST(TransitionerRules, Transitioner_OnErrorMarksUnvalidatedSuccessNoCheck) {
  std::vector<ResultRow> results{over(101, Outcome::CouldntSend), success(102),
                                 success(103, ValidateState::Inconclusive)};
  TransitionPlan plan = plan_transition(make_wu(), results, 10);
  EXPECT_EQ(after(plan, results, 102).validate_state, ValidateState::NoCheck);
  EXPECT_EQ(after(plan, results, 103).validate_state, ValidateState::NoCheck);
  EXPECT_FALSE(plan.workunit.need_validate);
}

TEST(TransitionerRules, Transitioner_OnErrorMakesAssimilateReadyFromInitOnly) {
  std::vector<ResultRow> results{over(101, Outcome::CouldntSend)};
  EXPECT_EQ(plan_transition(make_wu(), results, 10).workunit.assimilate_state, AssimilateState::Ready);
  WorkunitRow done = make_wu();
  done.error_mask = kWuErrorCouldntSendResult;
  done.assimilate_state = AssimilateState::Done;
  EXPECT_EQ(plan_transition(done, results, 10).workunit.assimilate_state, AssimilateState::Done);
}

TEST(TransitionerRules, Transitioner_OnErrorCreatesNoResults) {
  WorkunitRow wu = make_wu(2, 2);
  wu.error_mask = kWuErrorCancelled;
  TransitionPlan plan = plan_transition(wu, {}, 10);
  EXPECT_TRUE(plan.new_results.empty());
  EXPECT_EQ(plan.workunit.assimilate_state, AssimilateState::Ready);
}

// --- validation trigger ----------------------------------------------------------------

TEST(TransitionerRules, Transitioner_SetsNeedValidateWhenQuorumOfSuccessAndOneUnvalidated) {
  WorkunitRow wu = make_wu(2, 2);
  EXPECT_FALSE(plan_transition(wu, {success(101), in_progress(102, 5000)}, 10).workunit.need_validate);
  EXPECT_TRUE(plan_transition(wu, {success(101), success(102)}, 10).workunit.need_validate);
  // Two inconclusive and nothing new: nothing to validate.
  EXPECT_FALSE(plan_transition(wu,
                               {success(101, ValidateState::Inconclusive),
                                success(102, ValidateState::Inconclusive), in_progress(103, 5000)},
                               10)
                   .workunit.need_validate);
}

TEST(TransitionerRules, Transitioner_SetsNeedValidateForStragglerWhenCanonicalExists) {
  WorkunitRow wu = make_wu(3, 3);
  wu.canonical_resultid = 101;
  wu.assimilate_state = AssimilateState::Ready;
  std::vector<ResultRow> results{success(101, ValidateState::Valid), success(102)};
  EXPECT_TRUE(plan_transition(wu, results, 10).workunit.need_validate);
}

TEST(TransitionerRules, Transitioner_MarksStragglerTooLateWhenCanonicalFilesDeleted) {
  WorkunitRow wu = assimilated(make_wu(), 101);
  wu.file_delete_state = FileDeleteState::Done;
  ResultRow canonical = success(101, ValidateState::Valid);
  canonical.file_delete_state = FileDeleteState::Done;
  std::vector<ResultRow> results{canonical, success(102)};
  TransitionPlan plan = plan_transition(wu, results, 10);
  EXPECT_EQ(after(plan, results, 102).validate_state, ValidateState::TooLate);
  EXPECT_FALSE(plan.workunit.need_validate);
  // ... and, being reported after its time, its output can go at once.
  EXPECT_EQ(after(plan, results, 102).file_delete_state, FileDeleteState::Ready);
}

// --- file deletion ---------------------------------------------------------------------

TEST(TransitionerRules, Transitioner_InputFilesReadyOnlyWhenAllOverAndAssimilated) {
  std::vector<ResultRow> all_over{success(101, ValidateState::Valid), over(102, Outcome::NoReply)};
  WorkunitRow ready = make_wu();
  ready.canonical_resultid = 101;
  ready.assimilate_state = AssimilateState::Ready;
  EXPECT_EQ(plan_transition(ready, all_over, 10).workunit.file_delete_state, FileDeleteState::Init);
  EXPECT_EQ(plan_transition(assimilated(make_wu(), 101), all_over, 10).workunit.file_delete_state,
            FileDeleteState::Ready);
  std::vector<ResultRow> one_out{success(101, ValidateState::Valid), in_progress(102, 5000)};
  EXPECT_EQ(plan_transition(assimilated(make_wu(), 101), one_out, 10).workunit.file_delete_state,
            FileDeleteState::Init);
  std::vector<ResultRow> unchecked{success(101, ValidateState::Valid), success(102)};
  EXPECT_EQ(plan_transition(assimilated(make_wu(), 101), unchecked, 10).workunit.file_delete_state,
            FileDeleteState::Init);
}

TEST(TransitionerRules, Transitioner_ResultFilesReadyForErrorAndCheckedResultsAfterAssimilation) {
  std::vector<ResultRow> results{success(101, ValidateState::Valid), success(102, ValidateState::Invalid),
                                 over(103, Outcome::ClientError),    over(104, Outcome::NoReply),
                                 over(105, Outcome::DidntNeed),      in_progress(106, 5000)};
  TransitionPlan plan = plan_transition(assimilated(make_wu(), 101), results, 10);
  EXPECT_EQ(after(plan, results, 102).file_delete_state, FileDeleteState::Ready);
  EXPECT_EQ(after(plan, results, 103).file_delete_state, FileDeleteState::Ready);
  EXPECT_EQ(after(plan, results, 104).file_delete_state, FileDeleteState::Init);
  EXPECT_EQ(after(plan, results, 105).file_delete_state, FileDeleteState::Init);
  EXPECT_EQ(after(plan, results, 106).file_delete_state, FileDeleteState::Init);
}

TEST(TransitionerRules, Transitioner_CanonicalFilesKeptUntilAllOverAndValidated) {
  std::vector<ResultRow> out{success(101, ValidateState::Valid), in_progress(102, 5000)};
  TransitionPlan plan = plan_transition(assimilated(make_wu(), 101), out, 10);
  EXPECT_EQ(after(plan, out, 101).file_delete_state, FileDeleteState::Init);
  std::vector<ResultRow> unchecked{success(101, ValidateState::Valid), success(102)};
  plan = plan_transition(assimilated(make_wu(), 101), unchecked, 10);
  EXPECT_EQ(after(plan, unchecked, 101).file_delete_state, FileDeleteState::Init);
  std::vector<ResultRow> done{success(101, ValidateState::Valid), success(102, ValidateState::Valid)};
  plan = plan_transition(assimilated(make_wu(), 101), done, 10);
  EXPECT_EQ(after(plan, done, 101).file_delete_state, FileDeleteState::Ready);
}

TEST(TransitionerRules, Transitioner_NeverDeletesFilesBeforeAssimilation) {
  WorkunitRow wu = make_wu();
  wu.canonical_resultid = 101;
  wu.assimilate_state = AssimilateState::Ready;
  std::vector<ResultRow> results{success(101, ValidateState::Valid), over(102, Outcome::ClientError)};
  TransitionPlan plan = plan_transition(wu, results, 10);
  EXPECT_TRUE(plan.result_updates.empty());
  EXPECT_EQ(plan.workunit.file_delete_state, FileDeleteState::Init);
}

// --- next transition -------------------------------------------------------------------

TEST(TransitionerRules, Transitioner_TransitionTimeIsEarliestInProgressDeadline) {
  std::vector<ResultRow> results{in_progress(101, 3000), in_progress(102, 2000), success(103)};
  EXPECT_EQ(plan_transition(make_wu(), results, 10).workunit.transition_time, 2000);
}

TEST(TransitionerRules, Transitioner_TransitionTimeNeverWhenNothingInProgress) {
  std::vector<ResultRow> results{unsent(101), unsent(102)};
  EXPECT_EQ(plan_transition(make_wu(), results, 10).workunit.transition_time, kTransitionNever);
  // The last in-progress result timing out leaves nothing to wait for either.
  std::vector<ResultRow> late{in_progress(101, 5), over(102, Outcome::CouldntSend)};
  EXPECT_EQ(plan_transition(make_wu(), late, 10).workunit.transition_time, kTransitionNever);
}

TEST(TransitionerRules, Transitioner_TransitionTimeAfterNowWhenDeadlineIsNow) {
  std::vector<ResultRow> results{in_progress(101, 1000)};
  EXPECT_EQ(plan_transition(make_wu(), results, 1000).workunit.transition_time, 1001);
}

TEST(TransitionerRules, Transitioner_ReportsOnlyChangedResults) {
  std::vector<ResultRow> results{in_progress(101, 500), in_progress(102, 5000), success(103)};
  TransitionPlan plan = plan_transition(make_wu(2, 2), results, 1000);
  ASSERT_EQ(plan.result_updates.size(), 1u);
  EXPECT_EQ(plan.result_updates[0].before.server_state, ServerState::InProgress);
  EXPECT_EQ(plan.result_updates[0].after.id, 101);
}

TEST(TransitionerRules, Transitioner_NotesNameTheIdsForTheLog) {
  std::vector<ResultRow> results{in_progress(101, 500)};
  TransitionPlan plan = plan_transition(make_wu(1, 1), results, 1000);
  ASSERT_EQ(plan.notes.size(), 2u);  // the time-out, and its replacement
  EXPECT_NE(plan.notes[0].find("result 101 timed out"), std::string::npos);
  EXPECT_NE(plan.notes[1].find("1 new result"), std::string::npos);

  WorkunitRow wu = assimilated(make_wu(), 999);
  TransitionPlan missing = plan_transition(wu, {success(101, ValidateState::Valid)}, 10);
  ASSERT_FALSE(missing.notes.empty());
  EXPECT_NE(missing.notes[0].find("canonical result 999"), std::string::npos);
}

}  // namespace
}  // namespace tharsis::transitioner_rules_test
