// The file deleter's rules: which files may go, and the state recorded after trying.
#include "daemons/file_deleter/file_deleter_rules.h"

#include <gtest/gtest.h>

#include "tests/unit/backend_rows_fixture.h"

namespace tharsis {
namespace {

using Names = std::vector<std::string>;

WorkunitRow wu_in(FileDeleteState state) {
  WorkunitRow wu = test::make_wu();
  wu.file_delete_state = state;
  return wu;
}

TEST(FileDeleterRules, FileDeleter_DeletesInputsOnlyWhenReady) {
  std::vector<StoredFile> inputs{{"in_a", false}, {"in_b", false}};
  FileSelection init = select_input_files(wu_in(FileDeleteState::Init), inputs, {});
  EXPECT_FALSE(init.eligible);
  EXPECT_TRUE(init.delete_now.empty());
  FileSelection done = select_input_files(wu_in(FileDeleteState::Done), inputs, {});
  EXPECT_FALSE(done.eligible);
  EXPECT_TRUE(done.delete_now.empty());
  FileSelection ready = select_input_files(wu_in(FileDeleteState::Ready), inputs, {});
  EXPECT_TRUE(ready.eligible);
  EXPECT_EQ(ready.delete_now, (Names{"in_a", "in_b"}));
}

TEST(FileDeleterRules, FileDeleter_KeepsSharedInputWhileLiveWorkunitNeedsIt) {
  std::vector<StoredFile> inputs{{"shared", false}, {"own", false}};
  FileSelection s = select_input_files(wu_in(FileDeleteState::Ready), inputs, {"shared"});
  EXPECT_EQ(s.delete_now, (Names{"own"}));
  EXPECT_EQ(s.kept_shared, (Names{"shared"}));
  // Once no live workunit references it, the last one to finish deletes it.
  FileSelection last = select_input_files(wu_in(FileDeleteState::Ready), inputs, {"unrelated"});
  EXPECT_EQ(last.delete_now, (Names{"shared", "own"}));
}

TEST(FileDeleterRules, FileDeleter_KeepsNoDeleteFiles) {
  std::vector<StoredFile> inputs{{"keep_me", true}, {"tmp", false}};
  FileSelection s = select_input_files(wu_in(FileDeleteState::Ready), inputs, {});
  EXPECT_EQ(s.delete_now, (Names{"tmp"}));
  EXPECT_EQ(s.kept_no_delete, (Names{"keep_me"}));
}

TEST(FileDeleterRules, FileDeleter_FileNamedTwiceIsDeletedOnce) {
  std::vector<StoredFile> inputs{{"x", false}, {"x", false}};
  EXPECT_EQ(select_input_files(wu_in(FileDeleteState::Ready), inputs, {}).delete_now, Names{"x"});
}

TEST(FileDeleterRules, FileDeleter_DeletesOutputsOnlyWhenResultReady) {
  ResultRow r = test::success(101);
  std::vector<StoredFile> outputs{{"wu7_1_0", false}};
  EXPECT_FALSE(select_output_files(r, outputs, {}).eligible);
  r.file_delete_state = FileDeleteState::Ready;
  EXPECT_EQ(select_output_files(r, outputs, {}).delete_now, Names{"wu7_1_0"});
  // A canonical output that is a graph successor's input stays.
  EXPECT_EQ(select_output_files(r, outputs, {"wu7_1_0"}).kept_shared, Names{"wu7_1_0"});
}

TEST(FileDeleterRules, FileDeleter_DoneAfterAttemptWhenFilesDeletedOrMissing) {
  FileDeletionDecision d = decide_after_deletion(
      "workunit 7", {{"a", DeleteAttempt::Deleted, ""}, {"b", DeleteAttempt::NotFound, ""}});
  EXPECT_EQ(d.new_state, FileDeleteState::Done);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.deleted, 1);
  EXPECT_EQ(d.not_found, 1);
  EXPECT_TRUE(d.messages.empty());
  EXPECT_EQ(decide_after_deletion("workunit 7", {}).new_state, FileDeleteState::Done);
}

TEST(FileDeleterRules, FileDeleter_StaysReadyAndCountsFailures) {
  FileDeletionDecision d = decide_after_deletion(
      "result 34", {{"a", DeleteAttempt::Deleted, ""}, {"b", DeleteAttempt::Failed, "Permission denied"}});
  EXPECT_EQ(d.new_state, FileDeleteState::Ready);
  EXPECT_TRUE(d.retry);
  EXPECT_EQ(d.failed, 1);
  ASSERT_EQ(d.messages.size(), 1u);
  EXPECT_NE(d.messages[0].find("result 34"), std::string::npos);
  EXPECT_NE(d.messages[0].find("b"), std::string::npos);
  EXPECT_NE(d.messages[0].find("Permission denied"), std::string::npos);
}

TEST(FileDeleterRules, FileDeleter_RetryBacksOffFrom60SecondsTo6Hours) {
  EXPECT_EQ(file_delete_retry_delay(1), 60);
  EXPECT_EQ(file_delete_retry_delay(2), 120);
  EXPECT_EQ(file_delete_retry_delay(3), 240);
  EXPECT_EQ(file_delete_retry_delay(9), 60 * 256);
  EXPECT_EQ(file_delete_retry_delay(10), 6 * 3600);
  EXPECT_EQ(file_delete_retry_delay(1000000), 6 * 3600);
}

TEST(FileDeleterRules, FileDeleter_RetryCountsFailuresAndWaitsFromNow) {
  const FileDeleteRetry first = next_file_delete_retry(0, 1000);
  EXPECT_EQ(first.failures, 1);
  EXPECT_EQ(first.next_time, 1060);
  const FileDeleteRetry third = next_file_delete_retry(2, 5000);
  EXPECT_EQ(third.failures, 3);
  EXPECT_EQ(third.next_time, 5240);
  EXPECT_EQ(next_file_delete_retry(-1, 0).failures, 1) << "a bad count reads as never";
}

TEST(FileDeleterRules, FileDeleter_OnlyOtherLiveWorkunitsOrSandboxesHoldAFile) {
  const std::vector<StoredFile> named{
      {"own", false}, {"shared", false}, {"sandboxed", false}, {"unknown", false}, {"also_mine", false}};
  const FileUsers users{{"own", {7}}, {"shared", {7, 8}}, {"sandboxed", {0}}, {"also_mine", {7}}};
  EXPECT_EQ(live_references(7, named, users), (std::set<std::string>{"shared", "sandboxed"}))
      << "the row's own workunit is the last user; another workunit or a sandbox keeps it";
  EXPECT_EQ(live_references(8, named, users),
            (std::set<std::string>{"own", "shared", "sandboxed", "also_mine"}));
  EXPECT_TRUE(live_references(7, named, {}).empty());
}

TEST(FileDeleterRules, FileDeleter_PartialUploadGoesWithItsResultsOutputs) {
  ResultRow r = test::over(101, Outcome::ClientError);
  r.file_delete_state = FileDeleteState::Ready;
  std::vector<StoredFile> outputs{{"wu7_1_0", false}, {"wu7_1_1", true}, {"shared_0", false}};
  FileSelection s = select_output_files(r, outputs, {"shared_0"});
  EXPECT_EQ(s.delete_now, (Names{"wu7_1_0"}));
  EXPECT_EQ(s.partial_uploads, (Names{"wu7_1_0", "wu7_1_1"}))
      << "an unfinished upload is of no use, no_delete or not";
  EXPECT_EQ(partial_upload_name("wu7_1_0"), "wu7_1_0.partial");
  EXPECT_TRUE(select_input_files(wu_in(FileDeleteState::Ready), outputs, {}).partial_uploads.empty())
      << "inputs have no partial uploads";
}

TEST(FileDeleterRules, FileDeleter_TimedOutResultsUploadsGoWithTheWorkunitsInputs) {
  ResultRow timed_out = test::over(101, Outcome::NoReply);
  std::vector<StoredFile> outputs{{"wu7_1_0", false}};
  FileSelection init = select_abandoned_outputs(wu_in(FileDeleteState::Init), timed_out, outputs, {});
  EXPECT_FALSE(init.eligible) << "its workunit may still take it";
  FileSelection ready = select_abandoned_outputs(wu_in(FileDeleteState::Ready), timed_out, outputs, {});
  EXPECT_TRUE(ready.eligible);
  EXPECT_EQ(ready.delete_now, (Names{"wu7_1_0"}));
  EXPECT_EQ(ready.partial_uploads, (Names{"wu7_1_0"}));
  ResultRow marked = test::over(102, Outcome::ClientError);
  marked.file_delete_state = FileDeleteState::Ready;
  EXPECT_FALSE(select_abandoned_outputs(wu_in(FileDeleteState::Ready), marked, outputs, {}).eligible)
      << "a result marked for deletion deletes its own files";
  EXPECT_FALSE(
      select_abandoned_outputs(wu_in(FileDeleteState::Ready), test::in_progress(103, 5000), outputs, {})
          .eligible);
  EXPECT_FALSE(select_abandoned_outputs(wu_in(FileDeleteState::Ready), test::over(104, Outcome::DidntNeed),
                                        outputs, {})
                   .eligible)
      << "never sent, nothing uploaded";
}

}  // namespace
}  // namespace tharsis
