// The upload handler's rule: which result an output belongs to, and whether an upload of
// it is written, acknowledged as a repeat or refused (sched/lib/upload_rules.h).
#include "sched/lib/upload_rules.h"

#include <gtest/gtest.h>

namespace tharsis::upload_rules_test {
namespace {

OutputOwner owner_in(ServerState state, Outcome outcome = Outcome::Init) {
  OutputOwner owner;
  owner.output_names = {"wu_7_0_0", "wu_7_0_1"};
  owner.state.server_state = state;
  owner.state.outcome = outcome;
  return owner;
}

const std::string kMd5 = "e74f0a5b2c8d9e1f00112233445566ff";

TEST(UploadRules, OutputNameGivesItsResultName) {
  EXPECT_EQ(output_result_name("wu_7_0_0"), "wu_7_0");
  EXPECT_EQ(output_result_name("job_12"), "job");
  EXPECT_EQ(output_result_name("a_b_c_100"), "a_b_c");
  EXPECT_EQ(output_result_name("nounderscore"), std::nullopt);
  EXPECT_EQ(output_result_name("result_"), std::nullopt);
  EXPECT_EQ(output_result_name("_0"), std::nullopt);
  EXPECT_EQ(output_result_name("result_x1"), std::nullopt);
}

TEST(UploadRules, AnOutputOfAResultInProgressIsWritten) {
  EXPECT_EQ(decide_upload("wu_7_0_1", 10, kMd5, owner_in(ServerState::InProgress), std::nullopt).verdict,
            UploadVerdict::Write);
}

TEST(UploadRules, ANameOfNoResultsOutputIsRefused) {
  auto none = decide_upload("wu_7_0_0", 10, kMd5, std::nullopt, std::nullopt);
  EXPECT_EQ(none.verdict, UploadVerdict::Refuse);
  EXPECT_NE(none.reason.find("no result has an output file named wu_7_0_0"), std::string::npos)
      << none.reason;
  // The result exists, but this is not one of its outputs.
  EXPECT_EQ(decide_upload("wu_7_0_5", 10, kMd5, owner_in(ServerState::InProgress), std::nullopt).verdict,
            UploadVerdict::Refuse);
}

TEST(UploadRules, AReportedResultTakesNoOutput) {
  for (Outcome outcome :
       {Outcome::Success, Outcome::ClientError, Outcome::DidntNeed, Outcome::ValidateError}) {
    auto d = decide_upload("wu_7_0_0", 10, kMd5, owner_in(ServerState::Over, outcome), std::nullopt);
    EXPECT_EQ(d.verdict, UploadVerdict::Refuse) << static_cast<int>(outcome);
    EXPECT_NE(d.reason.find("no longer takes output"), std::string::npos) << d.reason;
  }
  EXPECT_EQ(decide_upload("wu_7_0_0", 10, kMd5, owner_in(ServerState::Unsent), std::nullopt).verdict,
            UploadVerdict::Refuse);
}

TEST(UploadRules, ALateResultOfAnOpenWorkunitStillTakesOutput) {
  OutputOwner late = owner_in(ServerState::Over, Outcome::NoReply);
  EXPECT_EQ(decide_upload("wu_7_0_0", 10, kMd5, late, std::nullopt).verdict, UploadVerdict::Write);
  late.state.wu_canonical_resultid = 99;  // the workunit is done: too late
  EXPECT_EQ(decide_upload("wu_7_0_0", 10, kMd5, late, std::nullopt).verdict, UploadVerdict::Refuse);
}

TEST(UploadRules, ACompleteFileIsNeverRewrittenButASameContentRepeatIsAcknowledged) {
  for (ServerState state : {ServerState::InProgress, ServerState::Over}) {
    OutputOwner owner = owner_in(state, state == ServerState::Over ? Outcome::Success : Outcome::Init);
    StoredOutput stored{10, kMd5};
    EXPECT_EQ(decide_upload("wu_7_0_0", 10, kMd5, owner, stored).verdict, UploadVerdict::AcknowledgeRepeat);
    // md5 case does not matter; size, md5 and a missing md5 do.
    std::string upper = kMd5;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(decide_upload("wu_7_0_0", 10, upper, owner, stored).verdict, UploadVerdict::AcknowledgeRepeat);
    auto other_size = decide_upload("wu_7_0_0", 9, kMd5, owner, StoredOutput{10, ""});
    EXPECT_EQ(other_size.verdict, UploadVerdict::Refuse);
    EXPECT_NE(other_size.reason.find("never rewritten"), std::string::npos) << other_size.reason;
    EXPECT_EQ(decide_upload("wu_7_0_0", 10, "00000000000000000000000000000000", owner, stored).verdict,
              UploadVerdict::Refuse);
    EXPECT_EQ(decide_upload("wu_7_0_0", 10, "", owner, stored).verdict, UploadVerdict::Refuse);
  }
}

}  // namespace
}  // namespace tharsis::upload_rules_test
