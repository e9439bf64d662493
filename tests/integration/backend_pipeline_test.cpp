// The four daemons' passes, in-process, over a real MariaDB and a real project dir,
// driven through whole workunit lifecycles (the scheduler's writes done directly with
// its DB functions): quorum agreement, garbage caught by the validator, time-outs,
// too many errors; each run ends with tools/check's settled checks clean.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "daemons/assimilator/lib/assimilator_pass.h"
#include "daemons/assimilator/lib/results_store.h"
#include "daemons/file_deleter/lib/file_deleter_pass.h"
#include "daemons/transitioner/lib/transitioner_pass.h"
#include "daemons/validator/lib/validator_pass.h"
#include "db/file_store.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "db/workunit_store.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"
#include "tests/integration/backend_fixture.h"
#include "tests/support/child_process.h"
#include "tests/support/daemon_rounds.h"
#include "tests/support/held_elsewhere.h"
#include "tests/support/test_project.h"
#include "tools/lib/checker.h"
#include "tools/lib/db_purge.h"

namespace tharsis::backend_pipeline_test {
namespace {

constexpr int64_t kStart = 1'800'000'000;

size_t results_of_count(const std::map<int64_t, ResultRow>& results, int64_t wu_id) {
  size_t n = 0;
  for (const auto& [id, r] : results) n += r.workunitid == wu_id;
  return n;
}

class BackendPipeline : public testing::BackendFixture {
 protected:
  // Both results of a quorum-2 workunit sent to hosts 11 and 12, reported with the same
  // output, and the transitioner's pass that sets need_validate.
  void send_and_report_agreeing_pair(int64_t wu) {
    auto results = results_of(wu);
    ASSERT_EQ(results.size(), 2u);
    send(results[0], 11);
    send(results[1], 12);
    now_ += 10;
    report(results[0], 11, "answer 42\n");
    report(results[1], 12, "answer 42\n");
    DaemonOptions options;
    DaemonContext context{project_.config(), options, Shard{}, 1000};
    TransitionerPass(project_.config()).do_pass(*db_, context, now_);
  }
  void expect_settled_and_clean() { expect_clean(/*settled=*/true); }

  // A job whose one input is `file` in download/, written with `content` (empty: the file
  // there is reused).
  JobSpec job_reading(const std::string& name, const std::string& file, const std::string& content) {
    JobSpec job;
    job.name = name;
    job.appid = project_.appid();
    job.output_template_file = project_.output_template();
    job.delay_bound = 1000;
    job.inputs = {InputFile{file, "in", content, false}};
    return job;
  }
  std::string download_path(const std::string& file) {
    return fanout_path(config().download_dir, file, config().uldl_dir_fanout);
  }
  // The workunit's first result sent to `host` and reported done.
  void complete(int64_t wu, int64_t host) {
    auto results = results_of(wu);
    ASSERT_FALSE(results.empty());
    send(results[0], host);
    report(results[0], host, "ok\n");
  }
  // The file deleter leaves the inputs of `wu` alone until release_deletion (a
  // file_delete_retry row, as after a failed unlink).
  void hold_deletion(int64_t wu) {
    exec(*db_, "INSERT INTO file_delete_retry (owner, id, failures, next_time) VALUES (0, ?, 1, ?)", wu,
         now_ + 1000);
  }
  void release_deletion(int64_t wu) {
    exec(*db_, "DELETE FROM file_delete_retry WHERE owner = 0 AND id = ?", wu);
  }
};

TEST_F(BackendPipeline, QuorumOfTwoAgreeingResultsIsAssimilatedOnceAndFilesDeleted) {
  int64_t wu = create("agree", 2, 2);
  run_daemons();
  auto results = results_of(wu);
  ASSERT_EQ(results.size(), 2u);
  std::string in_path =
      fanout_path(project_.config().download_dir, "agree.in", project_.config().uldl_dir_fanout);
  EXPECT_TRUE(read_text_file(in_path).ok()) << "input deleted early";
  send(results[0], 11);
  send(results[1], 12);
  now_ += 10;
  report(results[0], 11, "answer 42\n");
  report(results[1], 12, "answer 42\n");
  run_daemons();
  auto done = fetch_workunit(*db_, wu);
  EXPECT_NE(done->canonical_resultid, 0);
  EXPECT_EQ(done->assimilate_state, AssimilateState::Done);
  EXPECT_EQ(done->file_delete_state, FileDeleteState::Done);
  EXPECT_FALSE(read_text_file(in_path).ok()) << "input left behind";
  auto manifest = read_manifest(project_.config().project_dir + "/results", "agree");
  ASSERT_TRUE(manifest.ok()) << manifest.error();
  EXPECT_EQ(manifest->size(), 1u);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM assimilation WHERE workunitid = ?", wu), 1);
  expect_settled_and_clean();
}

TEST_F(BackendPipeline, GarbageResultIsOutvotedByAThirdResult) {
  int64_t wu = create("garbage", 2, 2);
  run_daemons();
  auto results = results_of(wu);
  send(results[0], 11);
  send(results[1], 12);
  report(results[0], 11, "answer 42\n");
  report(results[1], 12, "answer 41 (cosmic ray)\n");
  run_daemons();
  results = results_of(wu);
  ASSERT_EQ(results.size(), 3u) << "no consensus: the transitioner adds a result";
  send(results[2], 13);
  report(results[2], 13, "answer 42\n");
  run_daemons();
  results = results_of(wu);
  auto done = fetch_workunit(*db_, wu);
  EXPECT_EQ(done->canonical_resultid == results[0].id || done->canonical_resultid == results[2].id, true);
  EXPECT_EQ(results[1].validate_state, ValidateState::Invalid);
  EXPECT_EQ(results[0].validate_state, ValidateState::Valid);
  EXPECT_EQ(results[2].validate_state, ValidateState::Valid);
  expect_settled_and_clean();
}

TEST_F(BackendPipeline, VanishedHostTimesOutAndTheWorkIsResent) {
  int64_t wu = create("vanish", 1, 1);
  run_daemons();
  auto results = results_of(wu);
  send(results[0], 11);
  now_ += 1001;  // past the deadline, never reported
  run_daemons();
  results = results_of(wu);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].outcome, Outcome::NoReply);
  send(results[1], 12);
  report(results[1], 12, "late but fine\n");
  run_daemons();
  EXPECT_EQ(fetch_workunit(*db_, wu)->canonical_resultid, results[1].id);
  expect_settled_and_clean();
}

TEST_F(BackendPipeline, TooManyErrorsEndsTheWorkunitInErrorAndStillCleansUp) {
  int64_t wu = create("doomed", 1, 1, /*max_errors=*/1);
  for (int attempt = 0; attempt < 2; ++attempt) {
    run_daemons();
    auto results = results_of(wu);
    const ResultRow& latest = results.back();
    send(latest, 20 + attempt);
    report(latest, 20 + attempt, "");
  }
  run_daemons();
  auto done = fetch_workunit(*db_, wu);
  EXPECT_TRUE(done->error_mask & kWuErrorTooManyErrorResults);
  EXPECT_EQ(done->assimilate_state, AssimilateState::Done);
  EXPECT_TRUE(read_text_file(project_.config().project_dir + "/results/doomed/ERROR").ok());
  expect_settled_and_clean();
}

TEST_F(BackendPipeline, SharedInputIsKeptUntilTheLastWorkunitIsDone) {
  auto a_id = create_workunit(*db_, config(), job_reading("share_a", "shared.dat", "common data"), now_);
  ASSERT_TRUE(a_id.ok());
  auto b_id =
      create_workunit(*db_, config(), job_reading("share_b", "shared.dat", ""), now_);  // staged already
  ASSERT_TRUE(b_id.ok());
  run_daemons();
  complete(*a_id, 11);
  run_daemons();
  const std::string shared = download_path("shared.dat");
  EXPECT_TRUE(read_text_file(shared).ok()) << "shared input deleted while share_b still needs it";
  complete(*b_id, 12);
  run_daemons();
  EXPECT_FALSE(read_text_file(shared).ok()) << "shared input left behind";
  expect_settled_and_clean();
}

// create_work reusing a file already in download/ (content empty: "already staged") reads
// it before its transaction; a file deleter that read no live user for it (the workunit
// that named it is done) unlinked it meanwhile, and create_work used to commit a workunit
// naming a file not in download/. Now the workunit takes the file in its transaction and
// checks it is there: it is refused instead, and made again with the content.
TEST_F(BackendPipeline, AFileCreateWorkReusesIsNeverNamedAfterTheFileDeleterRemovedIt) {
  auto a_id = create_workunit(*db_, config(), job_reading("reuse_a", "reused.dat", "common data"), now_);
  ASSERT_TRUE(a_id.ok()) << a_id.error();
  run_daemons();
  // reuse_a done, its input's deletion held back until the race is set up.
  hold_deletion(*a_id);
  complete(*a_id, 11);
  run_daemons();
  ASSERT_EQ(fetch_workunit(*db_, *a_id)->file_delete_state, FileDeleteState::Ready);
  const std::string path = download_path("reused.dat");
  ASSERT_TRUE(read_text_file(path).ok());
  release_deletion(*a_id);

  // reuse_b finds reused.dat staged, then waits to insert its row (a row of that name is
  // being written elsewhere, and rolled back) while the file deleter removes reuse_a's input.
  JobSpec b = job_reading("reuse_b", "reused.dat", "");
  std::atomic<bool> created{false};
  Result<int64_t> b_id = make_error("not run");
  std::thread creator;
  testing::while_held_elsewhere(
      [&] { return project_.open(); },
      [&](Database& d) {
        WorkunitRow row;
        row.name = "reuse_b";
        row.appid = project_.appid();
        row.transition_time = kTransitionNever;
        insert_workunit(d, row);
      },
      [&] {
        creator = std::thread([&] {
          auto own = project_.open();
          b_id = create_workunit(*own, project_.config(), b, now_);
          created = true;
        });
        EXPECT_TRUE(testing::statement_waits_or(*db_, created)) << "create_work did not wait";
        run_daemons();
        EXPECT_EQ(fetch_workunit(*db_, *a_id)->file_delete_state, FileDeleteState::Done);
      },
      /*roll_back=*/true);
  creator.join();
  if (b_id.ok()) {
    EXPECT_TRUE(read_text_file(path).ok()) << "reuse_b names reused.dat, which is not in download/";
  } else {
    EXPECT_NE(b_id.error().find("reused.dat was deleted from download/ meanwhile"), std::string::npos)
        << b_id.error();
    EXPECT_FALSE(fetch_workunit_by_name(*db_, "reuse_b").has_value());
  }
  // Submitted again with its content, it runs.
  b.inputs[0].content = "common data";
  if (!b_id.ok()) b_id = create_workunit(*db_, project_.config(), b, now_);
  ASSERT_TRUE(b_id.ok()) << b_id.error();
  EXPECT_TRUE(read_text_file(path).ok());
  run_daemons();
  complete(*b_id, 12);
  run_daemons();
  EXPECT_FALSE(read_text_file(path).ok()) << "reused.dat left behind";
  expect_settled_and_clean();
}

// Two file deleters (--mod 2) each with a READY workunit naming one shared input: the one
// whose decision was committed first owns the deletion. The other leaves the file and the
// mark alone (its row goes DONE); no workunit takes the file meanwhile; the owner unlinks it.
TEST_F(BackendPipeline, ASharedInputTwoFileDeletersDecideToDeleteIsDeletedByTheFirst) {
  std::vector<int64_t> ids;
  for (const char* name : {"both_a", "both_b"}) {
    auto id = create_workunit(*db_, config(),
                              job_reading(name, "both.dat", ids.empty() ? "shared by two" : ""), now_);
    ASSERT_TRUE(id.ok()) << id.error();
    ids.push_back(*id);
  }
  ASSERT_NE(ids[0] % 2, ids[1] % 2) << "one in each shard of two";
  run_daemons();
  for (int64_t id : ids) {
    hold_deletion(id);
    complete(id, 11);
  }
  run_daemons();
  const std::string path = download_path("both.dat");
  ASSERT_TRUE(read_text_file(path).ok());
  for (int64_t id : ids) release_deletion(id);
  // ids[0]'s deleter decided (its mark committed) and has not unlinked yet.
  db_->transaction([&](Database& d) { mark_downloads_deleting(d, {{"both.dat", ids[0]}}); });
  DaemonOptions options;
  options.batch = 100;
  auto deleter_of = [&](int64_t id) {
    DaemonContext context{project_.config(), options, Shard{2, static_cast<int>(id % 2)}, 100};
    FileDeleterPass(project_.config()).do_pass(*db_, context, now_);
  };
  deleter_of(ids[1]);
  EXPECT_EQ(fetch_workunit(*db_, ids[1])->file_delete_state, FileDeleteState::Done);
  EXPECT_TRUE(read_text_file(path).ok()) << "both.dat unlinked by the deleter that decided second";
  EXPECT_EQ(downloads_deleting(*db_, {"both.dat"}), std::vector<std::string>{"both.dat"})
      << "the first deleter's mark was dropped: a workunit could take the file it unlinks";
  auto refused = create_workunit(*db_, config(), job_reading("both_late", "both.dat", ""), now_);
  ASSERT_FALSE(refused.ok()) << "a workunit took both.dat while a file deleter unlinks it";
  EXPECT_NE(refused.error().find("being deleted"), std::string::npos) << refused.error();
  deleter_of(ids[0]);
  EXPECT_EQ(fetch_workunit(*db_, ids[0])->file_delete_state, FileDeleteState::Done);
  EXPECT_FALSE(read_text_file(path).ok());
  EXPECT_TRUE(downloads_deleting(*db_, {"both.dat"}).empty());
}

TEST_F(BackendPipeline, DbPurgeArchivesFinishedWorkunitsOnlyAfterTheirAge) {
  int64_t finished = create("finished", 1, 1);
  int64_t pending = create("pending", 1, 1);
  run_daemons();
  auto r = results_of(finished)[0];
  send(r, 11);
  report(r, 11, "done\n", "took 1 s\n");
  run_daemons();
  ASSERT_EQ(fetch_workunit(*db_, finished)->file_delete_state, FileDeleteState::Done);
  ASSERT_EQ(fetch_result_stderr(*db_, r.id), "took 1 s\n");

  PurgeOptions options;
  options.archive_dir = project_.config().project_dir + "/archives";
  options.min_age_seconds = 3600;
  auto too_young = purge_finished(*db_, options, now_ + 10);
  ASSERT_TRUE(too_young.ok()) << too_young.error();
  EXPECT_EQ(too_young->workunits, 0);
  // "At least min_age": a second short is too young, exactly min_age old qualifies (so
  // --min_age_days 0 takes what was assimilated in the current second too).
  const int64_t assimilated = query_int(*db_, "SELECT time FROM assimilation WHERE workunitid = ?", finished);
  auto a_second_short = purge_finished(*db_, options, assimilated + 3599);
  ASSERT_TRUE(a_second_short.ok()) << a_second_short.error();
  EXPECT_EQ(a_second_short->workunits, 0);

  auto purged = purge_finished(*db_, options, assimilated + 3600);
  ASSERT_TRUE(purged.ok()) << purged.error();
  EXPECT_EQ(purged->workunits, 1);
  EXPECT_EQ(purged->results, 1);
  EXPECT_FALSE(fetch_workunit(*db_, finished).has_value());
  EXPECT_TRUE(fetch_workunit(*db_, pending).has_value()) << "an unfinished workunit was purged";
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM result WHERE workunitid = ?", finished), 0);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM result_stderr WHERE resultid = ?", r.id), 0)
      << "a purged result's stderr stayed";
  std::string archive;
  for (auto& day : std::filesystem::directory_iterator(options.archive_dir)) {
    for (auto& file : std::filesystem::directory_iterator(day.path())) {
      auto text = read_archive(file.path().string());
      ASSERT_TRUE(text.ok()) << text.error();
      archive += *text;
    }
  }
  EXPECT_NE(archive.find("<name>finished</name>"), std::string::npos);
  EXPECT_NE(archive.find("<name>" + r.name + "</name>"), std::string::npos);
  EXPECT_EQ(archive.find("<name>pending</name>"), std::string::npos);
}

// Issue 18: an archive is readable back. Every workunit and result purged is in the
// archives with the values its row had (doubles exactly, xml_doc with its markup).
TEST_F(BackendPipeline, DbPurgeArchivesReadBackAsTheRowsTheyReplaced) {
  int64_t pair = create("pair", 2, 2);
  int64_t single = create("single", 1, 1);
  run_daemons();
  for (const auto& r : results_of(pair)) {
    send(r, 11 + r.id);
    report(r, 11 + r.id, "same\n");
  }
  auto s = results_of(single)[0];
  send(s, 21);
  report(s, 21, "");  // an error: the workunit ends with an error mask
  for (int i = 0; i < 4; ++i) {
    run_daemons();
    for (const auto& r : results_of(single)) {
      if (r.server_state == ServerState::Unsent) {
        send(r, 22);
        report(r, 22, "");
      }
    }
  }
  exec(*db_, "UPDATE result SET cpu_time = 1234.56789012345678, granted_credit = 0.1 WHERE workunitid = ?",
       pair);
  std::map<int64_t, WorkunitRow> workunits;
  std::map<int64_t, ResultRow> results;
  std::map<int64_t, int64_t> assimilated;
  for (int64_t id : {pair, single}) {
    auto wu = fetch_workunit(*db_, id);
    ASSERT_TRUE(wu);
    ASSERT_EQ(wu->file_delete_state, FileDeleteState::Done) << wu->name;
    workunits[id] = *wu;
    assimilated[id] = query_int(*db_, "SELECT time FROM assimilation WHERE workunitid = ?", id);
    for (const auto& r : results_of(id)) results[r.id] = r;
  }
  EXPECT_NE(workunits[single].error_mask, 0);

  PurgeOptions options;
  options.archive_dir = project_.config().project_dir + "/archives";
  options.min_age_seconds = 60;
  auto purged = purge_finished(*db_, options, now_ + 7200);
  ASSERT_TRUE(purged.ok()) << purged.error();
  EXPECT_EQ(purged->workunits, 2);
  std::vector<ArchivedWorkunit> archived;
  for (auto& day : std::filesystem::directory_iterator(options.archive_dir)) {
    for (auto& file : std::filesystem::directory_iterator(day.path())) {
      auto records = read_archive_records(file.path().string());
      ASSERT_TRUE(records.ok()) << records.error();
      archived.insert(archived.end(), records->begin(), records->end());
      EXPECT_NE(render_archive_records(*records).find("workunit\t"), std::string::npos);
    }
  }
  ASSERT_EQ(archived.size(), 2u);
  size_t results_seen = 0;
  for (const auto& a : archived) {
    ASSERT_TRUE(workunits.count(a.id)) << a.id;
    const WorkunitRow& w = workunits[a.id];
    EXPECT_EQ(a.name, w.name);
    EXPECT_EQ(a.appid, w.appid);
    EXPECT_EQ(a.create_time, w.create_time);
    EXPECT_EQ(a.canonical_resultid, w.canonical_resultid);
    EXPECT_EQ(a.error_mask, w.error_mask);
    EXPECT_EQ(a.canonical_credit, w.canonical_credit);
    EXPECT_EQ(a.assimilated_time, assimilated[a.id]);
    EXPECT_EQ(a.xml_doc, w.xml_doc);
    EXPECT_EQ(a.results.size(), results_of_count(results, a.id));
    for (const auto& ar : a.results) {
      ASSERT_TRUE(results.count(ar.id)) << ar.id;
      const ResultRow& r = results[ar.id];
      ++results_seen;
      EXPECT_EQ(ar.name, r.name);
      EXPECT_EQ(ar.hostid, r.hostid);
      EXPECT_EQ(ar.server_state, code(r.server_state));
      EXPECT_EQ(ar.outcome, code(r.outcome));
      EXPECT_EQ(ar.validate_state, code(r.validate_state));
      EXPECT_EQ(ar.exit_status, r.exit_status);
      EXPECT_EQ(ar.cpu_time, r.cpu_time) << "a double lost digits in the archive";
      EXPECT_EQ(ar.granted_credit, r.granted_credit);
      EXPECT_EQ(ar.sent_time, r.sent_time);
      EXPECT_EQ(ar.received_time, r.received_time);
    }
  }
  EXPECT_EQ(results_seen, results.size());
  EXPECT_FALSE(parse_archive("<workunit><id>x</id></workunit>").ok());
  EXPECT_FALSE(parse_archive("<workunit>").ok());
}

// Found by bench/chaos.sh: check read a workunit and, a moment later, its results; a
// validator commit in between gave a state that never existed ("validate_state 1 but the
// workunit has no canonical result"). Here a writer flips one workunit between its states
// before and after validation, each flip one transaction, while check runs again and
// again: it must see one state or the other, never a mix.
TEST_F(BackendPipeline, CheckOnALiveDatabaseNeverSeesAHalfCommittedState) {
  int64_t wu = create("torn", 2, 2);
  run_daemons();
  send_and_report_agreeing_pair(wu);
  auto results = results_of(wu);

  struct State {
    int64_t canonical = 0, assimilate = 0, need_validate = 0, transition_time = 0;
    std::vector<int64_t> validate;
  };
  auto read_state = [&] {
    State s;
    auto row = query(*db_,
                     "SELECT canonical_resultid, assimilate_state, need_validate, transition_time "
                     "FROM workunit WHERE id = ?",
                     wu);
    EXPECT_TRUE(row->next());
    s.canonical = row->getInt64(1), s.assimilate = row->getInt64(2), s.need_validate = row->getInt64(3);
    s.transition_time = row->getInt64(4);
    for (const auto& r : results_of(wu)) s.validate.push_back(static_cast<int64_t>(r.validate_state));
    return s;
  };
  auto write_state = [&](Database& db, const State& s) {
    db.transaction([&](Database& d) {
      exec(d,
           "UPDATE workunit SET canonical_resultid = ?, assimilate_state = ?, need_validate = ?, "
           "transition_time = ? WHERE id = ?",
           s.canonical, s.assimilate, s.need_validate, s.transition_time, wu);
      for (size_t i = 0; i < results.size(); ++i) {
        exec(d, "UPDATE result SET validate_state = ? WHERE id = ?", s.validate[i], results[i].id);
      }
    });
  };
  State before = read_state();
  ASSERT_EQ(before.need_validate, 1);
  ValidatorPass validator(project_.config());
  ASSERT_TRUE(validator.validate_one(*db_, wu, now_));
  State after = read_state();
  ASSERT_NE(after.canonical, 0);
  for (const State* s : {&before, &after}) {  // each state alone is clean
    write_state(*db_, *s);
    for (const auto& v : check_project(*db_, project_.config(), now_, false).violations) ADD_FAILURE() << v;
  }

  std::atomic<bool> stop{false};
  std::thread writer([&] {
    auto db = project_.open();
    for (int i = 0; !stop; ++i) write_state(*db, i % 2 ? before : after);
  });
  size_t torn = 0;
  std::string first;
  for (int i = 0; i < 300; ++i) {
    auto violations = check_project(*db_, project_.config(), now_, false).violations;
    torn += violations.size();
    if (first.empty() && !violations.empty()) first = violations.front();
  }
  stop = true;
  writer.join();
  EXPECT_EQ(torn, 0u) << "first: " << first;
}

// A scheduler RPC holds its host's row from its first statement to its commit. The
// validator's batch must not wait for it (nor hold its workunits meanwhile): the credit it
// grants is recorded as pending and added to the totals once the host is free, once.
TEST_F(BackendPipeline, TheValidatorDoesNotWaitForAHostAnRpcHoldsAndItsCreditArrivesOnce) {
  exec(*db_, "INSERT IGNORE INTO user (id, email_addr, name, authenticator) VALUES (1, 'a@b', 'a', 'auth1')");
  exec(*db_, "INSERT INTO host (id, userid) VALUES (11, 1), (12, 1)");
  int64_t wu = create("held", 2, 2);
  run_daemons();
  send_and_report_agreeing_pair(wu);
  DaemonOptions options;
  DaemonContext context{project_.config(), options, Shard{}, 1000};
  auto credit = [&](const char* table, int64_t id) {
    return query_int(*db_, "SELECT ROUND(total_credit) FROM " + std::string(table) + " WHERE id = ?", id);
  };
  const int64_t user_before = credit("user", 1);
  exec(*db_, "SET SESSION innodb_lock_wait_timeout = 5");  // a wait would show as 5 s or more

  ValidatorPass validator(project_.config());
  testing::while_held_elsewhere(
      [&] { return project_.open(); },
      [](Database& rpc) { query_int(rpc, "SELECT id FROM host WHERE id = 11 FOR UPDATE"); },
      [&] {
        auto start = std::chrono::steady_clock::now();
        int validated = validator.do_pass(*db_, context, now_);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(validated, 1);
        EXPECT_LT(seconds, 2.0) << "the validator waited for the host the RPC holds";
        EXPECT_NE(fetch_workunit(*db_, wu)->canonical_resultid, 0);
        EXPECT_EQ(credit("host", 11), 0) << "held: its credit waits";
        EXPECT_EQ(credit("host", 12), 10);
        EXPECT_EQ(credit("user", 1), user_before + 10);
      });
  // `status` shows the admin the credit still on its way.
  const std::string out = project_.config().project_dir + "/status.txt";
  ASSERT_EQ(std::system((testing::built_programs_dir() + "/status --project_dir " +
                         project_.config().project_dir + " > " + out)
                            .c_str()),
            0);
  auto shown = read_text_file(out);
  ASSERT_TRUE(shown.ok());
  EXPECT_NE(shown->find("credit_pending           1"), std::string::npos) << *shown;

  EXPECT_EQ(validator.do_pass(*db_, context, now_), 0);
  EXPECT_EQ(credit("host", 11), 10);
  EXPECT_EQ(credit("user", 1), user_before + 20);
  EXPECT_EQ(validator.do_pass(*db_, context, now_), 0);
  EXPECT_EQ(credit("host", 11), 10) << "added once";
  EXPECT_EQ(credit("host", 12), 10);
  EXPECT_EQ(credit("user", 1), user_before + 20);
}

}  // namespace
}  // namespace tharsis::backend_pipeline_test
