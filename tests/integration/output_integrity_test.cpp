// Issue 13, item 1, the back end's side: an output swapped on the server after its host
// reported it (a forged re-upload; here the file is written directly) is never used. The
// validator makes that result VALIDATE_ERROR; the assimilator, finding the canonical
// result's files changed between validation and assimilation, stores nothing and sends
// the workunit back to validation; tools/check reports an assimilated output whose bytes
// differ from the canonical result's report. Real MariaDB, the daemons' real passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "daemons/assimilator/lib/results_store.h"
#include "daemons/transitioner/lib/transitioner_pass.h"
#include "daemons/validator/lib/validator_pass.h"
#include "db/sql.h"
#include "lib/crypto/md5.h"
#include "tests/integration/backend_fixture.h"

namespace tharsis {
namespace {

namespace fs = std::filesystem;

const std::string kAnswer = "answer 42: the honest output of this workunit\n";
const std::string kForged = "answer 41: forged\n";

class OutputIntegrity : public testing::BackendFixture {
 protected:
  std::string results_dir() { return config().project_dir + "/results"; }
  bool has_violation(const std::vector<std::string>& lines, const std::string& rule,
                     const std::string& text) {
    for (const auto& line : lines) {
      if (line.find("[" + rule + "]") != std::string::npos && line.find(text) != std::string::npos)
        return true;
    }
    return false;
  }
  // Workunit `name` at quorum 2, its two results sent to hosts 11 and 12 and both reported
  // 10 s later with the honest answer.
  void create_and_report_honestly(const std::string& name, int64_t& wu, std::vector<ResultRow>& results) {
    wu = create(name, 2, 2);
    run_daemons();
    results = results_of(wu);
    ASSERT_EQ(results.size(), 2u);
    send(results[0], 11);
    send(results[1], 12);
    now_ += 10;
    report(results[0], 11, kAnswer);
    report(results[1], 12, kAnswer);
  }
  // The assimilated copy is the honest answer, recorded once.
  void expect_assimilated_honestly(int64_t wu_id, const std::string& wu_name) {
    auto manifest = read_manifest(results_dir(), wu_name);
    ASSERT_TRUE(manifest.ok()) << manifest.error();
    ASSERT_EQ(manifest->size(), 1u);
    EXPECT_EQ(manifest->front().md5, md5_hex(kAnswer));
    EXPECT_EQ(manifest->front().size, static_cast<int64_t>(kAnswer.size()));
    EXPECT_EQ(*read_text_file(results_dir() + "/" + wu_name + "/" + manifest->front().name), kAnswer);
    EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM assimilation WHERE workunitid = ?", wu_id), 1);
  }
};

TEST_F(OutputIntegrity, OutputSwappedAfterItsReportIsAValidateErrorAndNeverCanonical) {
  int64_t wu = 0;
  std::vector<ResultRow> results;
  ASSERT_NO_FATAL_FAILURE(create_and_report_honestly("swap_early", wu, results));
  // Host 11 replaces its reported output (other bytes, other size) before validation.
  ASSERT_TRUE(write_text_file(upload_path(results[0]), kForged).ok());
  run_daemons();
  ResultRow forger = result(results[0].id);
  EXPECT_EQ(forger.outcome, Outcome::ValidateError);
  EXPECT_EQ(forger.validate_state, ValidateState::Error);
  EXPECT_EQ(fetch_workunit(*db_, wu)->canonical_resultid, 0) << "one readable result is no quorum";
  results = results_of(wu);
  ASSERT_EQ(results.size(), 3u) << "the transitioner replaces the VALIDATE_ERROR result";
  send(results[2], 13);
  report(results[2], 13, kAnswer);
  run_daemons();
  auto done = fetch_workunit(*db_, wu);
  EXPECT_TRUE(done->canonical_resultid == results[1].id || done->canonical_resultid == results[2].id);
  EXPECT_EQ(result(results[0].id).granted_credit, 0);
  expect_assimilated_honestly(wu, "swap_early");
  expect_clean(/*settled=*/true);
}

TEST_F(OutputIntegrity, CanonicalOutputSwappedBeforeAssimilationIsWithdrawnAndTheWorkunitRevalidated) {
  int64_t wu = 0;
  std::vector<ResultRow> results;
  ASSERT_NO_FATAL_FAILURE(create_and_report_honestly("swap_late", wu, results));
  // Validation only: the transitioner sets need_validate, the validator finds a consensus.
  DaemonOptions options;
  DaemonContext context{config(), options, Shard{}, 100};
  TransitionerPass(config()).do_pass(*db_, context, now_);
  ValidatorPass(config()).do_pass(*db_, context, now_);
  auto validated = fetch_workunit(*db_, wu);
  ASSERT_NE(validated->canonical_resultid, 0);
  ASSERT_EQ(validated->assimilate_state, AssimilateState::Ready);
  const int64_t canonical = validated->canonical_resultid;
  const int64_t other = canonical == results[0].id ? results[1].id : results[0].id;
  ASSERT_EQ(result(other).granted_credit, 10);

  // The canonical host swaps its file after validation, before the assimilator runs.
  ASSERT_TRUE(write_text_file(upload_path(result(canonical)), kForged).ok());
  now_ += 10;
  run_daemons();
  auto back = fetch_workunit(*db_, wu);
  EXPECT_EQ(back->canonical_resultid, 0) << "the canonical result is withdrawn";
  EXPECT_EQ(back->assimilate_state, AssimilateState::Init);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM assimilation WHERE workunitid = ?", wu), 0);
  EXPECT_FALSE(fs::exists(results_dir() + "/swap_late")) << "nothing forged (nor anything else) stored";
  EXPECT_EQ(result(canonical).outcome, Outcome::ValidateError);
  EXPECT_EQ(result(canonical).validate_state, ValidateState::Error);
  EXPECT_EQ(result(canonical).granted_credit, 0) << "the forger's credit is taken back";
  EXPECT_EQ(result(other).validate_state, ValidateState::Init) << "to be weighed again";
  EXPECT_EQ(result(other).granted_credit, 0) << "granted again when it is found valid";
  expect_clean(/*settled=*/false);

  results = results_of(wu);
  ASSERT_EQ(results.size(), 3u) << "a replacement for the withdrawn result";
  send(results[2], 13);
  now_ += 10;
  report(results[2], 13, kAnswer);
  run_daemons();
  auto done = fetch_workunit(*db_, wu);
  EXPECT_TRUE(done->canonical_resultid == other || done->canonical_resultid == results[2].id);
  EXPECT_EQ(done->assimilate_state, AssimilateState::Done);
  EXPECT_EQ(result(other).validate_state, ValidateState::Valid);
  EXPECT_EQ(result(other).granted_credit, 10) << "granted once in all";
  expect_assimilated_honestly(wu, "swap_late");
  expect_clean(/*settled=*/true);
}

TEST_F(OutputIntegrity, CheckReportsAnAssimilatedOutputThatDiffersFromTheCanonicalReport) {
  int64_t wu = create("stored", 1, 1);
  run_daemons();
  auto r = results_of(wu)[0];
  send(r, 11);
  report(r, 11, kAnswer);
  run_daemons();
  expect_assimilated_honestly(wu, "stored");
  expect_clean(/*settled=*/true);

  // A MANIFEST naming the forged size and md5 (what the assimilator wrote before the fix).
  auto manifest = read_manifest(results_dir(), "stored");
  ASSERT_TRUE(manifest.ok());
  const std::string name = manifest->front().name;
  const std::string stored = results_dir() + "/stored/" + name;
  fs::remove(stored);
  ASSERT_TRUE(write_text_file(stored, kForged).ok());
  ASSERT_TRUE(write_text_file(results_dir() + "/stored/MANIFEST",
                              name + " " + std::to_string(kForged.size()) + " " + md5_hex(kForged) + "\n")
                  .ok());
  auto found = violations(CheckOptions{false, false});
  EXPECT_TRUE(
      has_violation(found, "assimilated_output_matches_report", "reported " + std::to_string(kAnswer.size())))
      << (found.empty() ? "no violation" : found.front());

  // The MANIFEST put right, the stored bytes still forged: found by hashing them.
  ASSERT_TRUE(write_text_file(results_dir() + "/stored/MANIFEST",
                              name + " " + std::to_string(kAnswer.size()) + " " + md5_hex(kAnswer) + "\n")
                  .ok());
  EXPECT_TRUE(violations(CheckOptions{false, false}).empty()) << "the MANIFEST alone looks right";
  found = violations(CheckOptions{true, false});
  EXPECT_TRUE(has_violation(found, "assimilated_output_matches_report", "stored file " + name))
      << (found.empty() ? "no violation" : found.front());
  EXPECT_TRUE(
      has_violation(violations(CheckOptions{false, true}), "assimilated_output_matches_report", name));
}

}  // namespace
}  // namespace tharsis
