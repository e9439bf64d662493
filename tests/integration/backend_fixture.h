// A project, its database and the scheduler's and volunteers' parts done by hand (send,
// upload, report with the output's size and md5), for the back end's integration tests;
// the daemons run as their passes, in-process (tests/support/daemon_rounds.h).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "db/result_store.h"
#include "db/workunit_store.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"
#include "tests/support/daemon_rounds.h"
#include "tests/support/test_project.h"
#include "tools/lib/checker.h"

namespace tharsis::testing {

class BackendFixture : public ::testing::Test {
 protected:
  static constexpr int64_t kStart = 1'800'000'000;

  void SetUp() override { db_ = project_.open(); }
  const ProjectConfig& config() const { return project_.config(); }

  int64_t create(const std::string& name, int quorum, int target, int max_errors = 3) {
    JobSpec job;
    job.name = name;
    job.appid = project_.appid();
    job.inputs = {InputFile{name + ".in", "in", "seed " + name + "\n", false}};
    job.output_template_file = project_.output_template();
    job.min_quorum = quorum;
    job.target_nresults = target;
    job.max_error_results = max_errors;
    job.delay_bound = 1000;
    auto id = create_workunit(*db_, config(), job, now_);
    EXPECT_TRUE(id.ok()) << id.error();
    return id.ok() ? *id : 0;
  }
  void run_daemons() {
    ASSERT_TRUE(run_daemons_until_idle(*db_, config(), now_)) << "daemons did not settle";
  }
  std::vector<ResultRow> results_of(int64_t wu_id) { return fetch_results_of_workunit(*db_, wu_id); }
  ResultRow result(int64_t id) { return *fetch_result(*db_, id); }

  // Where output `i` of `r` lives in upload/.
  std::string upload_path(const ResultRow& r, size_t i = 0) {
    auto files = file_infos_in(r.xml_doc_in);
    EXPECT_TRUE(files.ok() && files->size() > i);
    auto path = fanout_path_create(config().upload_dir, (*files)[i].name, config().uldl_dir_fanout);
    EXPECT_TRUE(path.ok());
    return *path;
  }
  void send(const ResultRow& r, int64_t host) {
    ASSERT_TRUE(
        db_->transaction([&](Database& d) { return mark_result_sent(d, r.id, host, 1, now_, 1000, 1); }));
  }
  // The host uploads `output` as each output file of `r` and reports a success with their
  // sizes and md5s (as clients do), or a client error when `output` is empty; its stderr is
  // `stderr_text`.
  void report(const ResultRow& r, int64_t host, const std::string& output,
              const std::string& stderr_text = "") {
    ResultReport rp;
    rp.stderr_out = stderr_text;
    if (output.empty()) {
      rp.outcome = Outcome::ClientError;
      rp.client_state = ClientState::ComputeError;
      rp.exit_status = 1;
    } else {
      auto files = file_infos_in(r.xml_doc_in);
      ASSERT_TRUE(files.ok());
      for (size_t i = 0; i < files->size(); ++i) ASSERT_TRUE(write_text_file(upload_path(r, i), output).ok());
      auto described = describe_uploaded_outputs(config(), r.xml_doc_in);
      ASSERT_TRUE(described.ok()) << described.error();
      rp.xml_doc_out = *described;
      rp.claimed_credit = 10;
    }
    ASSERT_TRUE(db_->transaction([&](Database& d) { return mark_result_reported(d, r.id, host, now_, rp); }));
  }
  std::vector<std::string> violations(const CheckOptions& options) {
    return check_project(*db_, config(), now_, options).violations;
  }
  void expect_clean(bool settled) {
    for (const auto& v : violations(CheckOptions{settled, true})) ADD_FAILURE() << v;
  }

  TestProject project_;
  std::unique_ptr<Database> db_;
  int64_t now_ = kStart;
};

}  // namespace tharsis::testing
