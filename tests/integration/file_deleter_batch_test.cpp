// The file deleter's batches over a real MariaDB and a real project dir: a chunk of READY
// workunits is recorded DONE together, except one whose unlink fails, which stays READY
// and is retried after the delay.
#include <gtest/gtest.h>

#include <filesystem>

#include "daemons/file_deleter/lib/file_deleter_pass.h"
#include "db/workunit_store.h"
#include "lib/fanout.h"
#include "lib/text_file.h"
#include "tests/support/test_project.h"
#include "tools/lib/create_work.h"

namespace tharsis {
namespace {

constexpr int64_t kStart = 1'800'000'000;

TEST(FileDeleterBatch, OneFailedUnlinkStaysReadyWhileTheRestOfTheBatchIsDone) {
  testing::TestProject project;
  auto db = project.open();
  const ProjectConfig& config = project.config();
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) {
    JobSpec job;
    job.name = "batch_" + std::to_string(i);
    job.appid = project.appid();
    job.inputs = {InputFile{job.name + ".in", "in", "seed\n", false}};
    job.output_template_file = project.output_template();
    job.delay_bound = 1000;
    auto id = create_workunit(*db, config, job, kStart);
    ASSERT_TRUE(id.ok()) << id.error();
    ids.push_back(*id);
  }
  // The transitioner's part: every workunit over and assimilated.
  db->exec("UPDATE workunit SET file_delete_state = ?", FileDeleteState::Ready);
  auto path_of = [&](int i) {
    return fanout_path(config.download_dir, "batch_" + std::to_string(i) + ".in", config.uldl_dir_fanout);
  };
  // batch_2's input cannot be unlinked: a non-empty directory stands in its place.
  std::filesystem::remove(path_of(2));
  std::filesystem::create_directory(path_of(2));
  ASSERT_TRUE(write_text_file(path_of(2) + "/inside", "x").ok());

  DaemonOptions options;  // --units_per_commit 50: the five are one chunk
  DaemonContext context{config, options, Shard{}, 100};
  FileDeleterPass deleter(config);
  EXPECT_EQ(deleter.do_pass(*db, context, kStart), 4);
  for (int i = 0; i < 5; ++i) {
    auto wu = fetch_workunit(*db, ids[i]);
    ASSERT_TRUE(wu);
    EXPECT_EQ(wu->file_delete_state, i == 2 ? FileDeleteState::Ready : FileDeleteState::Done) << "workunit " << i;
    EXPECT_EQ(std::filesystem::exists(path_of(i)), i == 2) << "workunit " << i;
  }
  // Not retried before the delay, then retried and recorded once the file can go.
  EXPECT_EQ(deleter.do_pass(*db, context, kStart + 1), 0);
  std::filesystem::remove_all(path_of(2));
  EXPECT_EQ(deleter.do_pass(*db, context, kStart + 61), 1);
  EXPECT_EQ(fetch_workunit(*db, ids[2])->file_delete_state, FileDeleteState::Done);
  EXPECT_EQ(deleter.do_pass(*db, context, kStart + 200), 0);
}

}  // namespace
}  // namespace tharsis
