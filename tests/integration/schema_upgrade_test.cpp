// Schema upgrades (issue 18): a project's database made by the Tharsis before schema
// versioning (tests/fixtures/schema_v1.sql, db/schema.sql at 02d80d1, in a latin1
// database as a server default may have made it) is filled with work in every state,
// upgraded in place by tools/upgrade_db's library, and must then hold every row, the new
// index and character set, run to completion and pass check --settled. A migrated
// database must equal a new one; upgrading twice and a dry run change nothing; the
// daemons and the scheduler refuse an older schema.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "client/lib/example_kernel.h"
#include "daemons/assimilator/lib/assimilator_pass.h"
#include "daemons/assimilator/lib/cluster_settle.h"
#include "daemons/assimilator/lib/results_store.h"
#include "daemons/clusterer/lib/clusterer_pass.h"
#include "daemons/file_deleter/lib/file_deleter_pass.h"
#include "daemons/graph_scheduler/lib/graph_scheduler_pass.h"
#include "daemons/transitioner/lib/transitioner_pass.h"
#include "daemons/validator/lib/validator_pass.h"
#include "db/app_store.h"
#include "db/cluster_store.h"
#include "db/graph_store.h"
#include "db/result_store.h"
#include "db/schema_loader.h"
#include "db/schema_migrations.h"
#include "db/sql.h"
#include "db/workunit_store.h"
#include "lib/recluster/task_io.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"
#include "tests/support/child_process.h"
#include "tests/support/test_database.h"
#include "tools/lib/checker.h"
#include "tools/lib/graph_submit.h"
#include "tools/lib/make_project.h"
#include "tools/lib/submit_tasks.h"
#include "tools/lib/upgrade_db.h"

namespace tharsis::schema_upgrade_test {
namespace {

constexpr int64_t kStart = 1'800'000'000;
using Counts = std::vector<std::pair<std::string, int64_t>>;

std::string fixture(const std::string& name) {
  auto text = read_text_file(std::string(THARSIS_SOURCE_DIR) + "/tests/fixtures/" + name);
  if (!text.ok()) throw std::runtime_error(text.error());
  return *text;
}

// A database holding schema version 1, made in a database whose default is latin1.
class OldDatabase {
 public:
  OldDatabase() : config_(testing::shared_server_admin()) {
    static int counter = 0;
    config_.name = "old" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    DbConfig server = config_;
    server.name = "";
    execute_trusted_script(*Database::open(server),
                           "CREATE DATABASE `" + config_.name + "` CHARACTER SET latin1;");
    execute_trusted_script(*Database::open(config_), fixture("schema_v1.sql"));
  }
  ~OldDatabase() {
    try {
      drop_database(config_, config_.name);
    } catch (...) {
    }
  }
  const DbConfig& config() const { return config_; }

 private:
  DbConfig config_;
};

// The database's shape, as text lines: tables with their collation, columns with type,
// nullability, default and character set, indexes with their columns in order.
std::set<std::string> shape(Database& db) {
  std::set<std::string> lines;
  auto tables =
      query(db,
            "SELECT CONCAT('table ', TABLE_NAME, ' ', TABLE_COLLATION) FROM information_schema.TABLES WHERE "
            "TABLE_SCHEMA = DATABASE()");
  while (tables->next()) lines.insert(tables->getString(1));
  auto columns = query(
      db,
      "SELECT CONCAT_WS(' ', 'column', TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, "
      "IFNULL(COLUMN_DEFAULT, 'no-default'), IFNULL(CHARACTER_SET_NAME, '-'), IFNULL(COLLATION_NAME, '-'), "
      "EXTRA) "
      "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()");
  while (columns->next()) lines.insert(columns->getString(1));
  auto indexes = query(
      db,
      "SELECT CONCAT_WS(' ', 'index', TABLE_NAME, INDEX_NAME, NON_UNIQUE, GROUP_CONCAT(COLUMN_NAME ORDER BY "
      "SEQ_IN_INDEX)) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() GROUP BY "
      "TABLE_NAME, "
      "INDEX_NAME, NON_UNIQUE");
  while (indexes->next()) lines.insert(indexes->getString(1));
  return lines;
}

std::string difference(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::string out;
  for (const auto& line : a)
    if (!b.count(line)) out += "  only in the first: " + line + "\n";
  for (const auto& line : b)
    if (!a.count(line)) out += "  only in the second: " + line + "\n";
  return out;
}

std::map<std::string, int64_t> as_map(const Counts& counts) { return {counts.begin(), counts.end()}; }

TEST(SchemaUpgrade, MigratedV1EqualsFreshSchema) {
  OldDatabase old;
  auto db = Database::open(old.config());
  EXPECT_EQ(current_schema_version(*db), 1);
  auto upgraded = upgrade_schema(*db, kStart);
  ASSERT_TRUE(upgraded.ok()) << upgraded.error();
  const UpgradePlan& done = *upgraded;
  EXPECT_EQ(done.from_version, 1);
  EXPECT_EQ(done.to_version, latest_schema_version());
  EXPECT_EQ(current_schema_version(*db), latest_schema_version());
  testing::TestDatabase fresh;
  auto fresh_db = fresh.open();
  EXPECT_EQ(current_schema_version(*fresh_db), latest_schema_version())
      << "a new database is at the latest version";
  EXPECT_GT(shape(*fresh_db).size(), 200u);
  EXPECT_EQ(difference(shape(*db), shape(*fresh_db)), "")
      << "db/schema.sql and the migrations disagree (db/schema_migrations.h says how to add one)";
}

TEST(SchemaUpgrade, TwiceIsANoOpAndADryRunChangesNothing) {
  OldDatabase old;
  auto db = Database::open(old.config());
  ProjectConfig config;  // no daemons listed: none can be running
  std::ostringstream dry_out;
  auto dry = upgrade_project_database(config, *db, UpgradeOptions{true}, kStart, dry_out);
  ASSERT_TRUE(dry.ok()) << dry.error();
  EXPECT_GT(dry->statements, 0);
  EXPECT_NE(dry_out.str().find("ALTER TABLE `result` ADD KEY `res_wu_host` (workunitid, hostid)"),
            std::string::npos)
      << dry_out.str();
  EXPECT_NE(dry_out.str().find("dry run: nothing changed"), std::string::npos);
  EXPECT_EQ(current_schema_version(*db), 1) << "a dry run made schema_version";
  auto old_shape = shape(*db);
  {
    OldDatabase pristine;
    auto other = Database::open(pristine.config());
    EXPECT_EQ(difference(old_shape, shape(*other)), "") << "the dry run changed the database";
  }

  std::ostringstream first_out;
  auto first = upgrade_project_database(config, *db, UpgradeOptions{}, kStart, first_out);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->statements, dry->statements) << "the dry run did not show what the upgrade ran";
  auto upgraded = shape(*db);
  auto history = query_int(*db, "SELECT COUNT(*) FROM schema_migration");
  EXPECT_EQ(history, latest_schema_version() - 1) << "each migration recorded";

  std::ostringstream second_out;
  auto second = upgrade_project_database(config, *db, UpgradeOptions{}, kStart + 10, second_out);
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(second->statements, 0);
  EXPECT_NE(second_out.str().find("nothing to do"), std::string::npos) << second_out.str();
  EXPECT_EQ(difference(upgraded, shape(*db)), "");
  EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM schema_migration"), history);
  EXPECT_EQ(query_int(*db, "SELECT updated_time FROM schema_version"), kStart);

  // Every migration again on the upgraded database (as after a crash before its record):
  // each step finds its change in place and runs nothing.
  for (const auto& m : schema_migrations()) {
    for (const auto& step : m.steps)
      EXPECT_EQ(step.pending(*db), "") << "version " << m.version << ": " << step.description;
  }
}

// Expected refusals come back as errors (no exception) and change nothing: a database
// upgraded by a newer Tharsis, and one with no project tables at all.
TEST(SchemaUpgrade, ANewerOrAnEmptyDatabaseIsRefusedWithItsReason) {
  testing::TestDatabase fresh;
  auto db = fresh.open();
  const int newer = latest_schema_version() + 1;
  exec(*db, "UPDATE schema_version SET version = ? WHERE id = 1", newer);
  auto plan = plan_schema_upgrade(*db);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().find("newer than this build's"), std::string::npos) << plan.error();
  ProjectConfig config;
  std::ostringstream out;
  auto upgrade = upgrade_project_database(config, *db, UpgradeOptions{}, kStart, out);
  ASSERT_FALSE(upgrade.ok());
  EXPECT_NE(upgrade.error().find("schema version " + std::to_string(newer)), std::string::npos)
      << upgrade.error();
  EXPECT_EQ(current_schema_version(*db), newer);

  exec(*db, "DROP TABLE schema_version");
  exec(*db, "DROP TABLE workunit");
  auto empty = upgrade_schema(*db, kStart);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("has no Tharsis tables"), std::string::npos) << empty.error();
  EXPECT_EQ(query_int(*db,
                      "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() "
                      "AND TABLE_NAME = 'schema_version'"),
            0)
      << "a refused upgrade made schema_version";
}

// A stage of an interrupted upgrade: a migration's steps ran but its record did not.
TEST(SchemaUpgrade, AnInterruptedUpgradeResumes) {
  OldDatabase old;
  auto db = Database::open(old.config());
  for (const auto& m : schema_migrations()) {
    if (m.version > 3) break;
    for (const auto& step : m.steps) {
      std::string statement = step.pending(*db);
      if (!statement.empty()) execute_trusted_script(*db, statement);
    }
  }
  EXPECT_EQ(current_schema_version(*db), 1);
  auto upgraded = upgrade_schema(*db, kStart);
  ASSERT_TRUE(upgraded.ok()) << upgraded.error();
  const UpgradePlan& done = *upgraded;
  EXPECT_EQ(current_schema_version(*db), latest_schema_version());
  ASSERT_GE(done.migrations.size(), 3u);
  EXPECT_TRUE(done.migrations[0].statements.empty()) << "version 2 ran again";
  EXPECT_TRUE(done.migrations[1].statements.empty()) << "version 3 ran again";
}

// Version 9 moves each non-empty result.stderr_out into result_stderr, once, also when the
// upgrade was killed between the copy and the column's drop (the copy runs again).
TEST(SchemaUpgrade, StderrMovesToItsTableOnceAlsoAfterAnInterruption) {
  OldDatabase old;
  auto db = Database::open(old.config());
  const std::string text = std::string("client said \"done\"\n") + std::string(1, '\0') + " after a NUL";
  exec(*db, "INSERT INTO workunit (appid, name, xml_doc) VALUES (1, 'wu', '')");
  exec(*db,
       "INSERT INTO result (workunitid, appid, name, xml_doc_in, xml_doc_out, stderr_out) VALUES "
       "(1, 1, 'r0', '', '', ''), (1, 1, 'r1', '', '', ?)",
       text);
  for (const auto& m : schema_migrations()) {
    for (const auto& step : m.steps) {
      if (m.version == 9 && step.description.find("drop column") != std::string::npos) break;
      std::string statement = step.pending(*db);
      if (!statement.empty()) execute_trusted_script(*db, statement);
    }
  }
  EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM result_stderr"), 1) << "copied before the interruption";
  auto upgraded = upgrade_schema(*db, kStart);
  ASSERT_TRUE(upgraded.ok()) << upgraded.error();
  EXPECT_EQ(current_schema_version(*db), latest_schema_version());
  EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM result_stderr"), 1) << "only the non-empty stderr";
  int64_t r1 = query_int(*db, "SELECT id FROM result WHERE name = 'r1'");
  EXPECT_EQ(fetch_result_stderr(*db, r1), text);
  EXPECT_EQ(fetch_result_stderr(*db, query_int(*db, "SELECT id FROM result WHERE name = 'r0'")), "");
  EXPECT_EQ(fetch_result(*db, r1)->name, "r1") << "the result row reads without the column";
}

// No migration drops a table, nor a column before it copied what the column held: the
// only DROPs in a step are a column's, after a copy_while_column_exists step of the same
// migration for it, and an index's that the same statement adds again (the other DROP in db/ and tools/ is
// the test databases' DROP DATABASE, db/schema_loader.h).
TEST(SchemaUpgrade, NoMigrationDropsATableOrAnUncopiedColumn) {
  OldDatabase old;
  auto db = Database::open(old.config());
  int drops = 0;
  for (const auto& m : schema_migrations()) {
    std::set<std::string> copied;
    for (const auto& step : m.steps) {
      std::string statement = step.pending(*db);
      std::string upper = statement;
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (upper.find("DROP") == std::string::npos) {
        if (step.description.find(": copy ") != std::string::npos) copied.insert(step.description);
        continue;
      }
      // An index redefined (redefine_index) is dropped and added again in one statement.
      size_t key = statement.find("` DROP KEY `");
      if (key != std::string::npos) {
        std::string index = statement.substr(key + 12, statement.find('`', key + 12) - key - 12);
        EXPECT_NE(statement.find(", ADD KEY `" + index + "` ("), std::string::npos) << statement;
        continue;
      }
      ++drops;
      const std::string head = "ALTER TABLE `" + step.table + "` DROP COLUMN `";
      ASSERT_EQ(statement.rfind(head, 0), 0u) << statement;
      std::string column = statement.substr(head.size(), statement.size() - head.size() - 1);
      EXPECT_EQ(copied.count(step.table + ": copy " + column + " before it goes"), 1u)
          << "version " << m.version << " drops " << step.table << "." << column << " without a copy";
    }
  }
  EXPECT_EQ(drops, 1) << "version 9: result.stderr_out";
}

// make_project --force on an existing project upgrades its database in place (the rows
// stay) instead of loading db/schema.sql over it.
TEST(SchemaUpgrade, MakeProjectForceUpgradesAnExistingDatabase) {
  OldDatabase old;
  auto db = Database::open(old.config());
  exec(*db, "INSERT INTO app (name, user_friendly_name) VALUES ('kept', 'Kept')");
  testing::TempDir dir("tharsis-upgrade-mp");
  MakeProjectOptions options;
  options.project_dir = dir.path() + "/project";
  options.name = "oldmp";
  options.url_base = "http://127.0.0.1:1/";
  options.db = old.config();
  options.key_bits = 512;
  options.uldl_dir_fanout = 4;
  options.force = true;
  auto made = make_project(options);
  ASSERT_TRUE(made.ok()) << made.error();
  EXPECT_EQ(current_schema_version(*db), latest_schema_version());
  EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM app WHERE name = 'kept'"), 1);
  EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM schema_migration"), latest_schema_version() - 1);
}

// The real upgrade: an old project full of work in every state.
class OldProjectUpgrade : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeProjectOptions options;
    options.project_dir = dir_.path() + "/project";
    options.name = "old";
    options.url_base = "http://127.0.0.1:1/";
    options.db = old_.config();
    options.key_bits = 512;
    options.uldl_dir_fanout = 16;
    options.no_db = true;
    auto made = make_project(options);
    ASSERT_TRUE(made.ok()) << made.error();
    config_ = *made;
    config_.cluster_queue_jobs = 1000;
    db_ = Database::open(config_.db);
    appid_ = insert_app(*db_, AppRow{0, "example", "Example", "bitwise"});
    auto templ = write_output_template(config_, "example_out.xml", 1, 1 << 20);
    ASSERT_TRUE(templ.ok()) << templ.error();
    template_ = *templ;
  }

  int64_t create(const std::string& name, int quorum, int target) {
    JobSpec job;
    job.name = name;
    job.appid = appid_;
    job.inputs = {InputFile{name + ".in", "in", "seed " + name + "\n", false}};
    job.output_template_file = template_;
    job.min_quorum = quorum;
    job.target_nresults = target;
    job.max_error_results = 2;
    job.delay_bound = 1000;
    auto id = create_workunit(*db_, config_, job, now_);
    EXPECT_TRUE(id.ok()) << id.error();
    return id.ok() ? *id : 0;
  }

  // The passes of the daemons that do not need the new schema (no file deleter) or all.
  void run_passes(bool with_file_deleter) {
    DaemonOptions options;
    options.batch = 100;
    DaemonContext context{config_, options, Shard{}, 100};
    GraphSchedulerPass graphs(config_, 60);
    ClustererPass clusterer(config_, ClusterJobParams{});
    TransitionerPass transitioner(config_);
    ValidatorPass validator(config_);
    AssimilatorPass assimilator(config_, cluster_settling_handler(config_, results_store_handler(config_)));
    FileDeleterPass file_deleter(config_);
    std::vector<DaemonWork*> passes{&graphs, &clusterer, &transitioner, &validator, &assimilator};
    if (with_file_deleter) passes.push_back(&file_deleter);
    for (int round = 0; round < 50; ++round) {
      int done = 0;
      for (DaemonWork* pass : passes) done += pass->do_pass(*db_, context, now_);
      if (done == 0) return;
    }
    FAIL() << "daemons did not settle";
  }

  void send(const ResultRow& r) {
    ASSERT_TRUE(
        db_->transaction([&](Database& d) { return mark_result_sent(d, r.id, 7, 1, now_, 1000, 1); }));
  }
  void upload(const ResultRow& r, const std::string& text) {
    auto files = file_infos_in(r.xml_doc_in);
    ASSERT_TRUE(files.ok());
    for (const auto& f : *files) {
      auto path = fanout_path_create(config_.upload_dir, f.name, config_.uldl_dir_fanout);
      ASSERT_TRUE(write_text_file(*path, text).ok());
    }
  }
  void report_success(const ResultRow& r) {
    ResultReport rp;
    rp.claimed_credit = 1;
    rp.elapsed_time = 5;
    rp.xml_doc_out = *describe_uploaded_outputs(config_, r.xml_doc_in);
    ASSERT_TRUE(db_->transaction([&](Database& d) { return mark_result_reported(d, r.id, 7, now_, rp); }));
  }
  void report_error(const ResultRow& r) {
    ResultReport rp;
    rp.outcome = Outcome::ClientError;
    rp.client_state = ClientState::ComputeError;
    rp.exit_status = 1;
    ASSERT_TRUE(db_->transaction([&](Database& d) { return mark_result_reported(d, r.id, 7, now_, rp); }));
  }

  // The host's answer for result r: a graph operand's value ("const X" or the sum of its
  // inputs), a clustered job's per-task report (all done), or a plain job's fixed text.
  std::string answer(const ResultRow& r) {
    auto wu = fetch_workunit(*db_, r.workunitid);
    if (!wu) return "";
    auto tasks = fetch_tasks_in_job(*db_, wu->id);
    if (!tasks.empty()) {
      std::vector<TaskReport> reports;
      for (const auto& t : tasks) reports.push_back(TaskReport{t.id, true, "out" + std::to_string(t.id)});
      return render_task_report(reports);
    }
    if (wu->graph_id == 0) return "answer of " + wu->name + "\n";
    std::vector<std::string> contents;
    auto files = file_refs_in(wu->xml_doc);
    for (const auto& name : files) {
      auto text = read_text_file(fanout_path(config_.download_dir, name, config_.uldl_dir_fanout));
      contents.push_back(text.ok() ? *text : "");
    }
    if (contents.empty()) return "";
    double value = 0;
    if (contents[0].rfind("const ", 0) == 0) {
      value = std::stod(contents[0].substr(6));
    } else {
      for (size_t i = 1; i < contents.size(); ++i) value += std::stod(contents[i]);
    }
    return std::to_string(static_cast<int64_t>(value)) + "\n";
  }

  // Computes and reports every result sent or unsent; returns how many.
  int compute_all() {
    int n = 0;
    auto rows = query(*db_, "SELECT id FROM result WHERE server_state IN (?, ?) ORDER BY id",
                      ServerState::Unsent, ServerState::InProgress);
    std::vector<int64_t> ids;
    while (rows->next()) ids.push_back(rows->getInt64(1));
    for (int64_t id : ids) {
      auto r = fetch_result(*db_, id);
      if (!r) continue;
      if (r->server_state == ServerState::Unsent) send(*r);
      upload(*r, answer(*r));
      report_success(*r);
      ++n;
    }
    return n;
  }

  std::vector<std::string> file_refs_in(const std::string& xml) {
    std::vector<std::string> names;
    const std::string ref = "<file_ref><file_name>";
    for (size_t at = xml.find(ref); at != std::string::npos; at = xml.find(ref, at + 1)) {
      size_t begin = at + ref.size();
      names.push_back(xml.substr(begin, xml.find('<', begin) - begin));
    }
    return names;
  }

  // Work in every state: fresh, unsent, in progress, reported and awaiting validation,
  // validated and assimilated with files still to delete, failed; a graph half done;
  // clustered tasks in jobs, one job reported.
  void fill() {
    // Today's code writes columns that version 1 did not have; they exist only while
    // fill() runs, so the rows left behind are shaped as an older Tharsis left them.
    for (const char* table : kTablesWithAnOwnerSinceVersion8) {
      exec(*db_, std::string("ALTER TABLE ") + table + " ADD COLUMN user_id INT NOT NULL DEFAULT 0");
    }
    // And it leaves out result.stderr_out (moved to result_stderr in version 9).
    exec(*db_, "ALTER TABLE result ALTER COLUMN stderr_out SET DEFAULT ''");
    // Its validator passes credit through credit_pending (version 11), each pass emptying
    // it into the totals: the totals left are what an older validator wrote directly.
    exec(*db_,
         "CREATE TABLE credit_pending (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, host_id INT NOT NULL "
         "DEFAULT 0, user_id INT NOT NULL DEFAULT 0, credit DOUBLE NOT NULL DEFAULT 0)");
    // It takes the files of new workunits through download_claim (version 12).
    exec(*db_,
         "CREATE TABLE download_claim (name VARCHAR(254) NOT NULL PRIMARY KEY, deleting TINYINT NOT NULL "
         "DEFAULT 0, owner INT NOT NULL DEFAULT 0, takers BIGINT NOT NULL DEFAULT 0)");
    fill_rows();
    EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM credit_pending"), 0);
    exec(*db_, "DROP TABLE credit_pending");
    exec(*db_, "DROP TABLE download_claim");
    exec(*db_, "ALTER TABLE result ALTER COLUMN stderr_out DROP DEFAULT");
    for (const char* table : kTablesWithAnOwnerSinceVersion8) {
      exec(*db_, std::string("ALTER TABLE ") + table + " DROP COLUMN user_id");
    }
  }
  // Tables that gained user_id (the owner) in schema version 8.
  static constexpr const char* kTablesWithAnOwnerSinceVersion8[] = {"graph", "cluster_task"};

  void fill_rows() {
    create("fresh", 1, 1);  // the transitioner has not seen it yet (below: it has)
    int64_t unsent = create("unsent", 1, 1);
    int64_t sent = create("sent", 2, 2);
    int64_t reported = create("reported", 1, 1);
    int64_t finished = create("finished", 1, 1);
    int64_t failed = create("failed", 1, 1);
    GraphSubmission g;
    g.name = "sum";
    g.expression = "a + b";
    g.operands = {{"a", "const 2", {}}, {"b", "const 5", {}}, {"c", "add", {0, 1}}};
    g.job.appid = appid_;
    g.job.output_template_file = template_;
    g.job.delay_bound = 1000;
    g.job.max_error_results = 1;
    auto graph = submit_graph(*db_, config_, g, now_);
    ASSERT_TRUE(graph.ok()) << graph.error();
    graph_id_ = *graph;
    ASSERT_TRUE(submit_cluster_tasks(*db_, appid_, generated_tasks("t", 7, 2)).ok());
    run_passes(false);
    (void)unsent;
    auto first = [&](int64_t wu) { return fetch_results_of_workunit(*db_, wu).front(); };
    send(first(sent));
    auto r = first(reported);
    send(r);
    upload(r, answer(r));
    report_success(r);
    r = first(finished);
    send(r);
    upload(r, answer(r));
    report_success(r);
    now_ += 1;
    run_passes(false);             // finished: validated, assimilated, its files READY for the deleter
    for (int i = 0; i < 4; ++i) {  // errors beyond max_error_results (2)
      for (const auto& x : fetch_results_of_workunit(*db_, failed)) {
        if (x.server_state == ServerState::Unsent) {
          send(x);
          report_error(x);
        }
      }
      now_ += 1;
      run_passes(false);
    }
    // Graph: operand a computed, b sent; one clustered job reported.
    for (const auto& o : fetch_operands_of_graph(*db_, graph_id_)) {
      auto results = fetch_results_of_workunit(*db_, o.workunitid);
      if (results.empty()) continue;
      if (o.name == "a") {
        send(results.front());
        upload(results.front(), answer(results.front()));
        report_success(results.front());
      } else if (o.name == "b") {
        send(results.front());
      }
    }
    auto jobs =
        query(*db_, "SELECT workunitid FROM cluster_task WHERE workunitid <> 0 ORDER BY workunitid LIMIT 1");
    ASSERT_TRUE(jobs->next());
    r = first(jobs->getInt64(1));
    send(r);
    upload(r, answer(r));
    report_success(r);
    now_ += 1;
    run_passes(false);
    // Every state is there.
    EXPECT_EQ(fetch_workunit(*db_, finished)->file_delete_state, FileDeleteState::Ready);
    EXPECT_NE(fetch_workunit(*db_, failed)->error_mask, 0);
    EXPECT_EQ(fetch_workunit(*db_, reported)->assimilate_state, AssimilateState::Done);
    EXPECT_GT(query_int(*db_, "SELECT COUNT(*) FROM result WHERE server_state = ?", ServerState::InProgress),
              0);
    EXPECT_GT(query_int(*db_, "SELECT COUNT(*) FROM result WHERE server_state = ?", ServerState::Unsent), 0);
    EXPECT_GT(query_int(*db_, "SELECT COUNT(*) FROM operand WHERE state = ?", OperandState::Finished), 0);
    EXPECT_GT(query_int(*db_, "SELECT COUNT(*) FROM cluster_task WHERE state = 1"), 0);
  }

  testing::TempDir dir_{"tharsis-upgrade"};
  OldDatabase old_;
  ProjectConfig config_;
  std::unique_ptr<Database> db_;
  int64_t appid_ = 0;
  std::string template_;
  int64_t graph_id_ = 0;
  int64_t now_ = kStart;
};

TEST_F(OldProjectUpgrade, EveryRowKeptThenRunsToSettled) {
  fill();
  // Text a client could send, stored in the latin1 tables, survives the conversion.
  exec(*db_, "UPDATE host SET domain_name = ? WHERE id > 0", std::string("caf\xC3\xA9"));
  exec(*db_, "INSERT INTO host (userid, domain_name) VALUES (1, ?)", std::string("caf\xC3\xA9 na\xC3\xAFve"));
  // The clients' stderr of the reported results (one a full 64 KB with a NUL), in the
  // result row as version 1 kept it.
  exec(*db_, "UPDATE result SET stderr_out = CONCAT('stderr of ', name) WHERE server_state = ?",
       ServerState::Over);
  std::string full_stderr(64 << 10, 'e');
  full_stderr[10] = '\0';
  const int64_t with_full_stderr =
      query_int(*db_, "SELECT MIN(id) FROM result WHERE server_state = ?", ServerState::Over);
  exec(*db_, "UPDATE result SET stderr_out = ? WHERE id = ?", full_stderr, with_full_stderr);
  const int64_t with_stderr = query_int(*db_, "SELECT COUNT(*) FROM result WHERE stderr_out <> ''");
  EXPECT_GT(with_stderr, 3);
  Counts before = table_row_counts(*db_);
  int64_t before_rows = 0;
  for (const auto& [table, count] : before) before_rows += count;
  EXPECT_GT(before_rows, 40);

  // The daemons and check refuse the old schema, naming upgrade_db.
  const std::string log = dir_.path() + "/transitioner.log";
  {
    testing::ChildProcess daemon(testing::built_programs_dir() + "/transitioner",
                                 {"--project_dir", config_.project_dir, "--one_pass"}, log);
    EXPECT_EQ(daemon.wait(30), 2) << "a daemon ran on an old schema";
  }
  auto log_text = read_text_file(log);
  ASSERT_TRUE(log_text.ok());
  EXPECT_NE(log_text->find("upgrade_db --project_dir " + config_.project_dir), std::string::npos)
      << *log_text;
  EXPECT_NE(schema_version_problem(*db_, config_.project_dir), "");
  // check says so (a violation, exit 1); the scheduler, run as a CGI, answers as BOINC's
  // "down for maintenance" and touches nothing.
  const std::string out_file = dir_.path() + "/out.txt";
  std::string check =
      testing::built_programs_dir() + "/check --project_dir " + config_.project_dir + " > " + out_file;
  int status = std::system(check.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1);
  auto check_text = read_text_file(out_file);
  ASSERT_TRUE(check_text.ok());
  EXPECT_NE(check_text->find("schema: database"), std::string::npos) << *check_text;
  const std::string request = dir_.path() + "/request.xml";
  ASSERT_TRUE(write_text_file(request, "<scheduler_request></scheduler_request>\n").ok());
  std::string cgi = "THARSIS_PROJECT_DIR=" + config_.project_dir +
                    " REQUEST_METHOD=POST CONTENT_LENGTH=40 GATEWAY_INTERFACE=CGI/1.1 " +
                    testing::built_programs_dir() + "/scheduler < " + request + " > " + out_file +
                    " 2>/dev/null";
  std::system(cgi.c_str());
  auto reply = read_text_file(out_file);
  ASSERT_TRUE(reply.ok());
  EXPECT_NE(reply->find("down for maintenance (database upgrade)"), std::string::npos) << *reply;
  // upgrade_db refuses while a daemon of the project runs (a live pid in its pid file).
  {
    ProjectConfig running = config_;
    running.daemons = {DaemonConfig{"transitioner --sleep 5", false}};
    ASSERT_TRUE(write_text_file(running.pid_dir + "/transitioner.pid", std::to_string(getpid()) + "\n").ok());
    std::ostringstream refused_out;
    auto refused = upgrade_project_database(running, *db_, UpgradeOptions{}, now_, refused_out);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("daemons still running: transitioner"), std::string::npos)
        << refused.error();
    EXPECT_EQ(current_schema_version(*db_), 1);
    std::filesystem::remove(running.pid_dir + "/transitioner.pid");
  }

  std::ostringstream out;
  auto upgraded = upgrade_project_database(config_, *db_, UpgradeOptions{}, now_, out);
  ASSERT_TRUE(upgraded.ok()) << upgraded.error() << "\n" << out.str();
  EXPECT_EQ(upgraded->from_version, 1);
  EXPECT_EQ(current_schema_version(*db_), latest_schema_version());
  EXPECT_EQ(schema_version_problem(*db_, config_.project_dir), "");

  auto after = as_map(table_row_counts(*db_));
  for (const auto& [table, count] : before) EXPECT_EQ(after[table], count) << "table " << table;
  // Each non-empty stderr is in result_stderr, exactly; the result row has none.
  EXPECT_EQ(after["result_stderr"], with_stderr);
  EXPECT_EQ(query_int(*db_,
                      "SELECT COUNT(*) FROM result r JOIN result_stderr s ON s.resultid = r.id WHERE "
                      "s.stderr_out = CONCAT('stderr of ', r.name)"),
            with_stderr - 1);
  EXPECT_EQ(fetch_result_stderr(*db_, with_full_stderr), full_stderr);
  EXPECT_EQ(query_int(*db_,
                      "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND "
                      "TABLE_NAME = 'result' AND COLUMN_NAME = 'stderr_out'"),
            0);
  EXPECT_EQ(query_int(*db_,
                      "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() "
                      "AND TABLE_NAME = 'result' AND INDEX_NAME = 'res_wu_host'"),
            2);
  EXPECT_EQ(query_int(*db_,
                      "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND "
                      "TABLE_COLLATION NOT LIKE 'utf8mb4%'"),
            0);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM host WHERE domain_name = ?",
                      std::string("caf\xC3\xA9 na\xC3\xAFve")),
            1);
  exec(*db_, "UPDATE host SET domain_name = ? WHERE id = 1", std::string("emoji \xF0\x9F\x98\x80"));
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM host WHERE domain_name = ?",
                      std::string("emoji \xF0\x9F\x98\x80")),
            1);
  {
    testing::ChildProcess daemon(testing::built_programs_dir() + "/transitioner",
                                 {"--project_dir", config_.project_dir, "--one_pass"}, log);
    EXPECT_EQ(daemon.wait(30), 0) << "the daemon refused the upgraded database";
  }

  // Run everything to the end.
  for (int round = 0; round < 20; ++round) {
    now_ += 1;
    run_passes(true);
    if (compute_all() == 0) break;
  }
  now_ += 1;
  run_passes(true);
  EXPECT_EQ(
      query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE assimilate_state <> ?", AssimilateState::Done), 0);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM cluster_task WHERE state <> 2"), 0);
  auto graph = fetch_graph(*db_, graph_id_);
  ASSERT_TRUE(graph);
  EXPECT_EQ(graph->state, GraphState::Done);
  CheckReport report = check_project(*db_, config_, now_ + 10, CheckOptions{true, true});
  for (const auto& v : report.violations) ADD_FAILURE() << v;
}

}  // namespace
}  // namespace tharsis::schema_upgrade_test
