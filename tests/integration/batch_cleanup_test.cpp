// The file deleter's batch and sandbox lifecycle (daemons/file_deleter/lib/batch_cleanup.h)
// and db_purge's batch archives over a real MariaDB and a real project dir, with the clock
// injected: a batch past its expire_time is retired and its jobs cancelled; a retired
// batch's results go once all its jobs are assimilated, and only once; sandbox rows past
// their time go with the files nobody else holds, uses or just touched; a retired batch
// whose workunits are purged is archived by db_purge and reads back as it was.
#include "daemons/file_deleter/lib/batch_cleanup.h"

#include <gtest/gtest.h>
#include <sys/time.h>

#include <filesystem>

#include "daemons/file_deleter/lib/file_deleter_pass.h"
#include "db/batch_store.h"
#include "db/job_file_store.h"
#include "db/sql.h"
#include "db/states.h"
#include "db/workunit_store.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "lib/work/fanout.h"
#include "tests/support/accounts.h"
#include "tests/support/test_project.h"
#include "tools/lib/db_purge.h"

namespace tharsis::batch_cleanup_test {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kNow = 1'800'000'000;

class BatchCleanup : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = project_.open();
    user_ = testing::add_account(*db_, "scientist", "scientist_key");
    colleague_ = testing::add_account(*db_, "colleague", "colleague_key");
  }

  int64_t batch(const std::string& name, BatchState state, double expire_time = 0) {
    BatchRow b;
    b.user_id = user_;
    b.name = name;
    b.app_id = project_.appid();
    b.state = state;
    b.expire_time = expire_time;
    b.create_time = kNow - 86400;
    return insert_batch(*db_, b);
  }

  // A job of the batch with its directory in the results store; inputs in download/.
  int64_t job(int64_t batch_id, const std::string& name, const std::vector<std::string>& inputs = {}) {
    JobSpec spec;
    spec.name = name;
    spec.appid = project_.appid();
    spec.batch = static_cast<int>(batch_id);
    spec.output_template_file = project_.output_template();
    for (const auto& input : inputs) spec.inputs.push_back(InputFile{input, "in", "", false});
    auto id = create_workunit(*db_, config(), spec, kNow - 3600);
    EXPECT_TRUE(id.ok()) << id.error();
    fs::create_directories(results_dir(name));
    EXPECT_TRUE(write_text_file(results_dir(name) + "/MANIFEST", "out 1 x\n").ok());
    return id.ok() ? *id : 0;
  }

  std::string results_dir(const std::string& job) const { return config().project_dir + "/results/" + job; }
  std::string download(const std::string& name) const {
    return fanout_path(config().download_dir, name, config().uldl_dir_fanout);
  }
  // A file in download/ last touched at `mtime`.
  void put(const std::string& name, int64_t mtime) {
    auto path = fanout_path_create(config().download_dir, name, config().uldl_dir_fanout);
    ASSERT_TRUE(path.ok());
    ASSERT_TRUE(write_text_file(*path, name + " content\n").ok());
    timeval times[2] = {{static_cast<time_t>(mtime), 0}, {static_cast<time_t>(mtime), 0}};
    ASSERT_EQ(utimes(path->c_str(), times), 0);
  }
  void assimilate_jobs_of(int64_t batch_id) {
    exec(*db_, "UPDATE workunit SET assimilate_state = ? WHERE batch = ?", AssimilateState::Done, batch_id);
  }
  BatchCleanupCounts pass(int64_t now = kNow) {
    return clean_batches_and_sandboxes(*db_, config(), now, 100);
  }
  const ProjectConfig& config() const { return project_.config(); }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  int64_t user_ = 0, colleague_ = 0;
};

TEST_F(BatchCleanup, ExpiredBatchIsRetiredAndItsJobsCancelled) {
  int64_t expired = batch("expired", BatchState::InProgress, kNow - 10);
  int64_t later = batch("later", BatchState::InProgress, kNow + 10);
  int64_t never = batch("never", BatchState::Completed);
  int64_t e0 = job(expired, "expired_0"), l0 = job(later, "later_0");
  job(never, "never_0");
  EXPECT_EQ(pass().expired, 1);
  EXPECT_EQ(fetch_batch(*db_, expired)->state, BatchState::Retired);
  EXPECT_EQ(fetch_batch(*db_, later)->state, BatchState::InProgress);
  EXPECT_EQ(fetch_batch(*db_, never)->state, BatchState::Completed);
  EXPECT_NE(fetch_workunit(*db_, e0)->error_mask & kWuErrorCancelled, 0);
  EXPECT_EQ(fetch_workunit(*db_, l0)->error_mask, 0);
  EXPECT_EQ(pass().expired, 0) << "retired once";
  EXPECT_EQ(pass(kNow + 20).expired, 1);
  EXPECT_EQ(fetch_batch(*db_, later)->state, BatchState::Retired);
}

TEST_F(BatchCleanup, RetiredBatchesResultsGoOnceItsJobsAreAssimilated) {
  int64_t retired = batch("retired", BatchState::Retired);
  int64_t live = batch("live", BatchState::Completed);
  job(retired, "retired_0");
  job(retired, "retired_1");
  job(live, "live_0");
  EXPECT_EQ(pass().cleaned, 0) << "a job not assimilated yet may still write its results";
  EXPECT_TRUE(fs::exists(results_dir("retired_0")));
  assimilate_jobs_of(retired);
  assimilate_jobs_of(live);
  EXPECT_EQ(pass().cleaned, 1);
  EXPECT_FALSE(fs::exists(results_dir("retired_0")));
  EXPECT_FALSE(fs::exists(results_dir("retired_1")));
  EXPECT_TRUE(fs::exists(results_dir("live_0")));
  EXPECT_EQ(query_int(*db_, "SELECT files_deleted FROM batch WHERE id = ?", retired), 1);
  EXPECT_EQ(pass().cleaned, 0) << "done once";
  // An empty retired batch (created, never submitted) is cleaned at once.
  int64_t empty = batch("empty", BatchState::Retired);
  EXPECT_EQ(pass().cleaned, 1);
  EXPECT_EQ(query_int(*db_, "SELECT files_deleted FROM batch WHERE id = ?", empty), 1);
}

TEST_F(BatchCleanup, SandboxRowsPastTheirTimeGoWithTheFilesNobodyElseNeeds) {
  const int64_t old = kNow - 2 * 3600;
  for (const char* name : {"jf_alone", "jf_shared", "jf_batch", "jf_input", "jf_fresh", "jf_kept"})
    put(name, old);
  put("jf_fresh", kNow - 60);  // touched a minute ago: a submission may be about to use it
  hold_job_files(*db_, user_, {"jf_alone", "jf_shared", "jf_batch", "jf_input", "jf_fresh"},
                 kNow - 40 * 86400, kNow - 1);
  hold_job_files(*db_, user_, {"jf_kept"}, kNow - 40 * 86400, kNow + 86400);
  hold_job_files(*db_, colleague_, {"jf_shared"}, kNow - 40 * 86400, kNow + 86400);
  int64_t live = batch("live", BatchState::InProgress);
  associate_batch_files(*db_, live, {held_job_files(*db_, user_, {"jf_batch"}).at("jf_batch")});
  int64_t running = batch("running", BatchState::InProgress);
  job(running, "running_0", {"jf_input"});

  BatchCleanupCounts counts = pass();
  EXPECT_EQ(counts.sandbox_rows, 3);   // alone, shared (this account's row), input
  EXPECT_EQ(counts.sandbox_files, 1);  // alone
  EXPECT_FALSE(fs::exists(download("jf_alone")));
  EXPECT_TRUE(fs::exists(download("jf_shared"))) << "another account still holds it";
  EXPECT_TRUE(fs::exists(download("jf_batch"))) << "a live batch uses it";
  EXPECT_TRUE(fs::exists(download("jf_input"))) << "a workunit still to run names it";
  EXPECT_TRUE(fs::exists(download("jf_fresh")));
  EXPECT_TRUE(fs::exists(download("jf_kept")));
  auto held =
      held_job_files(*db_, user_, {"jf_alone", "jf_shared", "jf_batch", "jf_input", "jf_fresh", "jf_kept"});
  EXPECT_EQ(held.size(), 3u);
  EXPECT_TRUE(held.count("jf_batch") && held.count("jf_fresh") && held.count("jf_kept"));

  // The batch retired, the fresh file's grace over: both go.
  ASSERT_TRUE(mark_batch_retired(*db_, live));
  counts = pass(kNow + 2 * 3600);
  EXPECT_EQ(counts.sandbox_rows, 2);
  EXPECT_FALSE(fs::exists(download("jf_batch")));
  EXPECT_FALSE(fs::exists(download("jf_fresh")));
  EXPECT_TRUE(fs::exists(download("jf_kept")));
}

// The ordinary file deleter keeps a workunit's input while a sandbox holds it.
TEST_F(BatchCleanup, WorkunitInputHeldInASandboxOutlivesTheWorkunit) {
  put("jf_held", kNow - 2 * 3600);
  hold_job_files(*db_, user_, {"jf_held"}, kNow - 86400, kNow + 86400);
  int64_t id = job(batch("b", BatchState::InProgress), "b_0", {"jf_held"});
  exec(*db_, "UPDATE workunit SET file_delete_state = ?", FileDeleteState::Ready);
  DaemonOptions options;
  DaemonContext context{config(), options, Shard{}, 100};
  FileDeleterPass deleter(config());
  deleter.do_pass(*db_, context, kNow);
  EXPECT_EQ(fetch_workunit(*db_, id)->file_delete_state, FileDeleteState::Done);
  EXPECT_TRUE(fs::exists(download("jf_held")));
}

TEST_F(BatchCleanup, DbPurgeArchivesRetiredBatchesOnceTheirWorkunitsAreGone) {
  int64_t retired = batch("to_archive", BatchState::Retired, 1234.5);
  int64_t live = batch("still_live", BatchState::InProgress);
  job(retired, "to_archive_0");
  exec(
      *db_,
      "UPDATE batch SET njobs = 1, nerror_jobs = 1, credit_canonical = 0.125, completion_time = ? WHERE id = "
      "?",
      kNow - 7200, retired);
  assimilate_jobs_of(retired);
  ASSERT_EQ(pass().cleaned, 1);
  PurgeOptions options;
  options.archive_dir = config().project_dir + "/archives";
  auto early = purge_finished(*db_, options, kNow);
  ASSERT_TRUE(early.ok()) << early.error();
  EXPECT_EQ(early->batches, 0) << "its workunit is still there";
  exec(*db_, "DELETE FROM workunit WHERE batch = ?", retired);  // what db_purge does once it qualifies

  auto purged = purge_finished(*db_, options, kNow);
  ASSERT_TRUE(purged.ok()) << purged.error();
  EXPECT_EQ(purged->batches, 1);
  EXPECT_FALSE(fetch_batch(*db_, retired));
  EXPECT_TRUE(fetch_batch(*db_, live));
  std::vector<ArchivedBatch> archived;
  for (auto& day : fs::directory_iterator(options.archive_dir)) {
    for (auto& file : fs::directory_iterator(day.path())) {
      EXPECT_EQ(file.path().filename().string().rfind("batch_", 0), 0u) << file.path();
      auto records = read_batch_records(file.path().string());
      ASSERT_TRUE(records.ok()) << records.error();
      archived.insert(archived.end(), records->begin(), records->end());
      EXPECT_NE(render_batch_records(*records).find("batch\t" + std::to_string(retired) + "\tto_archive\t"),
                std::string::npos);
    }
  }
  ASSERT_EQ(archived.size(), 1u);
  const ArchivedBatch& b = archived[0];
  EXPECT_EQ(b.id, retired);
  EXPECT_EQ(b.name, "to_archive");
  EXPECT_EQ(b.user_id, user_);
  EXPECT_EQ(b.njobs, 1);
  EXPECT_EQ(b.nerror_jobs, 1);
  EXPECT_EQ(b.completion_time, kNow - 7200);
  EXPECT_DOUBLE_EQ(b.expire_time, 1234.5);
  EXPECT_DOUBLE_EQ(b.credit_canonical, 0.125);
  EXPECT_EQ(b.state, static_cast<int>(BatchState::Retired));
  EXPECT_FALSE(parse_batch_archive("<batch><id>x</id></batch>").ok());
  EXPECT_EQ(purge_finished(*db_, options, kNow)->batches, 0) << "archived once";
}

}  // namespace
}  // namespace tharsis::batch_cleanup_test
