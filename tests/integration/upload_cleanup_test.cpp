// Issue 13, item 8: partial uploads are cleaned up. A host that uploaded part of an output
// (upload/<fan-out>/<name>.partial) and then reported a client error, or timed out, leaves
// nothing behind once its workunit is finished and its files deleted; tools/check
// --settled reports any file in upload/ that belongs to no live result, and not the files
// of a result still live. Real MariaDB, the daemons' real passes.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/integration/backend_fixture.h"

namespace tharsis {
namespace {

namespace fs = std::filesystem;

class UploadCleanup : public testing::BackendFixture {
 protected:
  // 40 of the output's 100 bytes, as the upload handler keeps an unfinished upload.
  std::string upload_part(const ResultRow& r) {
    std::string partial = upload_path(r) + ".partial";
    EXPECT_TRUE(write_text_file(partial, std::string(40, 'x')).ok());
    return partial;
  }
  std::vector<std::string> orphan_lines(const std::vector<std::string>& lines) {
    std::vector<std::string> orphans;
    for (const auto& line : lines) {
      if (line.find("[no_orphan_uploads]") != std::string::npos) orphans.push_back(line);
    }
    return orphans;
  }
};

TEST_F(UploadCleanup, FileDeleterRemovesPartialUploadsOfFailedAndTimedOutResults) {
  int64_t wu = create("partial", 1, 1);
  run_daemons();
  // The first host uploads 40 bytes, then reports a client error.
  ResultRow failed = results_of(wu)[0];
  send(failed, 11);
  std::string failed_part = upload_part(failed);
  report(failed, 11, "");
  run_daemons();
  // The second host uploads 40 bytes and is never heard of again.
  auto results = results_of(wu);
  ASSERT_EQ(results.size(), 2u);
  ResultRow vanished = results[1];
  send(vanished, 12);
  std::string vanished_part = upload_part(vanished);
  now_ += 1001;
  run_daemons();
  EXPECT_EQ(result(vanished.id).outcome, Outcome::NoReply);
  EXPECT_TRUE(fs::exists(vanished_part)) << "its workunit is still open";
  // The third completes the workunit.
  results = results_of(wu);
  ASSERT_EQ(results.size(), 3u);
  send(results[2], 13);
  report(results[2], 13, "answer\n");
  run_daemons();
  ASSERT_EQ(fetch_workunit(*db_, wu)->file_delete_state, FileDeleteState::Done);
  EXPECT_FALSE(fs::exists(failed_part)) << "the client error's partial upload was left behind";
  EXPECT_FALSE(fs::exists(vanished_part)) << "the timed-out result's partial upload was left behind";
  EXPECT_EQ(result(vanished.id).file_delete_state, FileDeleteState::Init) << "the law never marks it";
  expect_clean(/*settled=*/true);
}

TEST_F(UploadCleanup, CheckSettledReportsOrphanUploadsButNotALiveResultsFiles) {
  int64_t done_wu = create("finished", 1, 1);
  int64_t live_wu = create("running", 1, 1);
  run_daemons();
  ResultRow done = results_of(done_wu)[0];
  send(done, 11);
  report(done, 11, "answer\n");
  ResultRow running = results_of(live_wu)[0];
  send(running, 12);
  std::string running_part = upload_part(running);  // an upload under way
  run_daemons();
  ASSERT_EQ(fetch_workunit(*db_, done_wu)->file_delete_state, FileDeleteState::Done);

  // Left behind: the finished result's output and partial upload, and a stray name.
  std::string left = upload_path(done);
  ASSERT_TRUE(write_text_file(left, "answer\n").ok());
  ASSERT_TRUE(write_text_file(left + ".partial", "ans").ok());
  auto stray = fanout_path_create(config().upload_dir, "never_sent_0", config().uldl_dir_fanout);
  ASSERT_TRUE(write_text_file(*stray, "?").ok());

  auto orphans = orphan_lines(violations(CheckOptions{true, false}));
  ASSERT_EQ(orphans.size(), 3u) << ::testing::PrintToString(orphans);
  const std::string name = fs::path(left).filename().string();
  auto mentions = [&](const std::string& text) {
    int n = 0;
    for (const auto& line : orphans) n += line.find(text) != std::string::npos;
    return n;
  };
  EXPECT_EQ(mentions("/" + name + " belongs"), 1);
  EXPECT_EQ(mentions("/" + name + ".partial belongs to no live result (an unfinished upload)"), 1);
  EXPECT_EQ(mentions("/never_sent_0 belongs"), 1);
  EXPECT_EQ(mentions(fs::path(running_part).filename().string()), 0)
      << "a live result's upload is not an orphan";
  EXPECT_TRUE(orphan_lines(violations(CheckOptions{false, false})).empty()) << "only with --settled";

  fs::remove(left);
  fs::remove(left + ".partial");
  fs::remove(*stray);
  EXPECT_TRUE(orphan_lines(violations(CheckOptions{true, false})).empty());
}

}  // namespace
}  // namespace tharsis
