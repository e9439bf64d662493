// The file deleter's batches over a real MariaDB and a real project dir: a chunk of READY
// workunits is recorded DONE together, except one whose unlink fails, which stays READY
// and is retried after the delay; rows that keep failing wait in file_delete_retry with
// back-off and never starve newer READY rows (issue 18), and the status page counts them.
#include <gtest/gtest.h>

#include <filesystem>

#include "daemons/file_deleter/file_deleter_rules.h"
#include "daemons/file_deleter/lib/file_deleter_pass.h"
#include "db/file_store.h"
#include "db/sql.h"
#include "db/workunit_store.h"
#include "lib/text_file.h"
#include "lib/web/server_status_render.h"
#include "lib/web/server_status_source.h"
#include "lib/work/create_work.h"
#include "lib/work/fanout.h"
#include "tests/support/rows_read.h"
#include "tests/support/test_project.h"

namespace tharsis::file_deleter_batch_test {
namespace {

constexpr int64_t kStart = 1'800'000'000;

// Workunits <prefix>0 .. <prefix>(count-1), each with one input <name>.in, created at kStart
// and then READY for the file deleter (the transitioner's part: every workunit over and
// assimilated). Their ids, in order, into `ids`.
void create_ready_workunits(const testing::TestProject& project, Database& db, const std::string& prefix,
                            int count, std::vector<int64_t>& ids) {
  for (int i = 0; i < count; ++i) {
    JobSpec job;
    job.name = prefix + std::to_string(i);
    job.appid = project.appid();
    job.inputs = {InputFile{job.name + ".in", "in", "seed\n", false}};
    job.output_template_file = project.output_template();
    job.delay_bound = 1000;
    auto id = create_workunit(db, project.config(), job, kStart);
    ASSERT_TRUE(id.ok()) << id.error();
    ids.push_back(*id);
  }
  exec(db, "UPDATE workunit SET file_delete_state = ?", FileDeleteState::Ready);
}

// A non-empty directory in place of the file at `path`, so that unlinking it fails.
void block_unlink(const std::string& path) {
  std::filesystem::remove(path);
  std::filesystem::create_directory(path);
  ASSERT_TRUE(write_text_file(path + "/inside", "x").ok());
}

TEST(FileDeleterBatch, OneFailedUnlinkStaysReadyWhileTheRestOfTheBatchIsDone) {
  testing::TestProject project;
  auto db = project.open();
  const ProjectConfig& config = project.config();
  std::vector<int64_t> ids;
  ASSERT_NO_FATAL_FAILURE(create_ready_workunits(project, *db, "batch_", 5, ids));
  auto path_of = [&](int i) {
    return fanout_path(config.download_dir, "batch_" + std::to_string(i) + ".in", config.uldl_dir_fanout);
  };
  // batch_2's input cannot be unlinked: a non-empty directory stands in its place.
  ASSERT_NO_FATAL_FAILURE(block_unlink(path_of(2)));

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
  ASSERT_NO_FATAL_FAILURE(create_ready_workunits(project, *db, "starve_", 6, ids));
  // The three oldest rows' inputs cannot be unlinked (a directory in their place): more
  // than a batch of two.
  for (int i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(block_unlink(path_of(i)));
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

// A file shared by every workunit (a project's common input) is asked about for each chunk
// of rows: what that costs must not grow with the workunits that name it, live or done
// (issue 16: reading every user made the file deleter fall behind in the pipeline bench).
TEST(FileDeleterBatch, LiveUsersOfAFileSharedByThousandsOfWorkunitsCostAFewRowReads) {
  testing::TestProject project;
  auto db = project.open();
  constexpr int kDone = 6000, kLive = 3000;
  exec(*db,
       "INSERT INTO workunit (appid, name, xml_doc, file_delete_state) SELECT ?, CONCAT('shared_', seq), '', "
       "IF(seq <= ?, ?, ?) FROM seq_1_to_" +
           std::to_string(kDone + kLive),
       project.appid(), kDone, FileDeleteState::Done, FileDeleteState::Init);
  exec(*db, "INSERT INTO workunit_input (workunitid, file_name) SELECT id, 'common.in' FROM workunit");
  // One live workunit of its own input, and one input only done workunits name.
  int64_t newest = query_int(*db, "SELECT MAX(id) FROM workunit");
  int64_t oldest = query_int(*db, "SELECT MIN(id) FROM workunit");
  exec(*db, "INSERT INTO workunit_input (workunitid, file_name) VALUES (?, 'own.in'), (?, 'old.in')", newest,
       oldest);
  query(*db, "ANALYZE TABLE workunit, workunit_input");
  auto rows_read = [&] { return testing::rows_read(*db); };
  int64_t start = rows_read();
  int64_t overhead = rows_read() - start;
  int64_t before = rows_read();
  // As a chunk asks: the common input once per row, and the others.
  std::vector<std::string> names(50, "common.in");
  names.push_back("own.in");
  names.push_back("old.in");
  FileUsers users = live_file_users(*db, names);
  int64_t read = rows_read() - before - overhead;

  // Two live users of the common input: enough to tell that some other workunit needs it,
  // whichever row asks (the newest two, found first).
  EXPECT_EQ(users["common.in"], (std::set<int64_t>{newest - 1, newest}));
  EXPECT_EQ(live_references(newest, {StoredFile{"common.in"}}, users), std::set<std::string>{"common.in"});
  // A file only its own (live) workunit names is that workunit's alone to delete.
  EXPECT_EQ(users["own.in"], std::set<int64_t>{newest});
  EXPECT_TRUE(live_references(newest, {StoredFile{"own.in"}}, users).empty());
  EXPECT_EQ(users.count("old.in"), 0u) << "only done workunits name it";
  EXPECT_LT(read, 100) << "rows read grow with the workunits that name a file";
}

}  // namespace
}  // namespace tharsis::file_deleter_batch_test
