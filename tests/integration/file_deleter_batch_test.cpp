// The file deleter's batches over a real MariaDB and a real project dir: a chunk of READY
// workunits is recorded DONE together, except one whose unlink fails, which stays READY
// and is retried after the delay; rows that keep failing wait in file_delete_retry with
// back-off and never starve newer READY rows (issue 18), and the status page counts them.
#include <gtest/gtest.h>

#include <filesystem>

#include "daemons/file_deleter/lib/file_deleter_pass.h"
#include "db/file_store.h"
#include "db/sql.h"
#include "db/workunit_store.h"
#include "lib/text_file.h"
#include "lib/web/server_status_render.h"
#include "lib/web/server_status_source.h"
#include "lib/work/create_work.h"
#include "lib/work/fanout.h"
#include "tests/support/test_project.h"

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
  exec(*db, "UPDATE workunit SET file_delete_state = ?", FileDeleteState::Ready);
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
    EXPECT_EQ(wu->file_delete_state, i == 2 ? FileDeleteState::Ready : FileDeleteState::Done)
        << "workunit " << i;
    EXPECT_EQ(std::filesystem::exists(path_of(i)), i == 2) << "workunit " << i;
  }
  // Not retried before the delay, then retried and recorded once the file can go.
  EXPECT_EQ(deleter.do_pass(*db, context, kStart + 1), 0);
  std::filesystem::remove_all(path_of(2));
  EXPECT_EQ(deleter.do_pass(*db, context, kStart + 61), 1);
  EXPECT_EQ(fetch_workunit(*db, ids[2])->file_delete_state, FileDeleteState::Done);
  EXPECT_EQ(deleter.do_pass(*db, context, kStart + 200), 0);
}

// Issue 18: more than --batch rows that keep failing filled every batch read (they were
// skipped in memory after the read), so newer READY rows waited forever.
TEST(FileDeleterBatch, RowsThatKeepFailingDoNotStarveNewerOnesAndBackOff) {
  testing::TestProject project;
  auto db = project.open();
  const ProjectConfig& config = project.config();
  std::vector<int64_t> ids;
  auto path_of = [&](int i) {
    return fanout_path(config.download_dir, "starve_" + std::to_string(i) + ".in", config.uldl_dir_fanout);
  };
  for (int i = 0; i < 6; ++i) {
    JobSpec job;
    job.name = "starve_" + std::to_string(i);
    job.appid = project.appid();
    job.inputs = {InputFile{job.name + ".in", "in", "seed\n", false}};
    job.output_template_file = project.output_template();
    job.delay_bound = 1000;
    auto id = create_workunit(*db, config, job, kStart);
    ASSERT_TRUE(id.ok()) << id.error();
    ids.push_back(*id);
  }
  exec(*db, "UPDATE workunit SET file_delete_state = ?", FileDeleteState::Ready);
  // The three oldest rows' inputs cannot be unlinked (a directory in their place): more
  // than a batch of two.
  for (int i = 0; i < 3; ++i) {
    std::filesystem::remove(path_of(i));
    std::filesystem::create_directory(path_of(i));
    ASSERT_TRUE(write_text_file(path_of(i) + "/inside", "x").ok());
  }
  DaemonOptions options;
  options.batch = 2;
  options.units_per_commit = 1;
  DaemonContext context{config, options, Shard{}, 2};
  FileDeleterPass deleter(config);
  for (int pass = 0; pass < 6; ++pass) deleter.do_pass(*db, context, kStart + pass);
  for (int i = 3; i < 6; ++i) {
    EXPECT_EQ(fetch_workunit(*db, ids[i])->file_delete_state, FileDeleteState::Done)
        << "workunit " << i << " starved";
    EXPECT_FALSE(std::filesystem::exists(path_of(i)));
  }
  EXPECT_EQ(count_file_delete_retries(*db), 3);
  auto failures = file_delete_failures(*db, FileOwner::Workunit, {ids[0], ids[1], ids[2]});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(failures[ids[i]], 1) << "tried again before its back-off";
  // Shown on the status page.
  ServerStatus status = load_server_status(config.db, kStart + 10, 120);
  ASSERT_TRUE(status.db_reachable) << status.db_error;
  EXPECT_EQ(status.file_delete_retries, 3);
  PageContext page;
  page.now = kStart + 10;
  EXPECT_NE(render_server_status_html(status, page).find("Rows in file-deletion retry: 3"),
            std::string::npos);

  // Retried after 60 s, then after 120 s more (back-off), done once the file can go.
  EXPECT_EQ(deleter.do_pass(*db, context, kStart + 70), 0);  // two of them: the batch
  EXPECT_EQ(deleter.do_pass(*db, context, kStart + 70), 0);  // the third
  failures = file_delete_failures(*db, FileOwner::Workunit, {ids[0]});
  EXPECT_EQ(failures[ids[0]], 2);
  EXPECT_EQ(query_int(*db, "SELECT next_time FROM file_delete_retry WHERE id = ?", ids[0]),
            kStart + 70 + 120);
  EXPECT_NE(query_int(*db, "SELECT LENGTH(last_error) FROM file_delete_retry WHERE id = ?", ids[0]), 0);
  for (int i = 0; i < 3; ++i) std::filesystem::remove_all(path_of(i));
  EXPECT_EQ(deleter.do_pass(*db, context, kStart + 100), 0) << "retried before its back-off";
  for (int pass = 0; pass < 3; ++pass) deleter.do_pass(*db, context, kStart + 200 + pass);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(fetch_workunit(*db, ids[i])->file_delete_state, FileDeleteState::Done);
  EXPECT_EQ(count_file_delete_retries(*db), 0);
}

}  // namespace
}  // namespace tharsis
