// make_project against a real private MariaDB and as a program: it creates the database
// with the schema, and its exit codes and messages are what an admin's script relies on.
#include "tools/lib/make_project.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "db/database.h"
#include "db/schema_loader.h"
#include "db/sql.h"
#include "db/workunit_store.h"
#include "lib/web/status_cgi.h"
#include "tests/support/test_database.h"

namespace tharsis {
namespace {

struct CommandRun {
  int exit_code;
  std::string output;  // stdout and stderr
};

CommandRun run(const std::string& command) {
  std::string full = command + " 2>&1";
  FILE* pipe = ::popen(full.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(MakeProjectDb, MakeProject_CreatesDatabaseWithSchema) {
  testing::TempDir dir("tharsis-mkproj");
  MakeProjectOptions options;
  options.project_dir = dir.path() + "/proj";
  options.name = "dbdemo";
  options.url_base = "http://127.0.0.1:8124/";
  options.db = testing::shared_server_admin();
  options.db.name = "tharsis_mkproj_" + std::to_string(::getpid());
  options.uldl_dir_fanout = 4;
  auto made = make_project(options);
  ASSERT_TRUE(made.ok()) << made.error();

  // The project's own config.xml reaches the new database, and the schema is there.
  auto config = load_project_config(options.project_dir + "/config.xml");
  ASSERT_TRUE(config.ok()) << config.error();
  auto db = Database::open(config->db);
  EXPECT_FALSE(fetch_workunit(*db, 1).has_value());
  db.reset();

  // The status pages' account from config.xml: reads this database, writes nothing.
  EXPECT_EQ(config->other["web_db_user"], read_only_user_name(options.db.name));
  const DbConfig pages = status_page_db(*config);
  EXPECT_EQ(pages.user, config->other["web_db_user"]);
  EXPECT_EQ(pages.password.size(), 24u);
  auto read_only = Database::open(pages);
  EXPECT_EQ(query_int(*read_only, "SELECT COUNT(*) FROM workunit"), 0);
  EXPECT_THROW(exec(*read_only, "INSERT INTO app (name) VALUES ('x')"), DbError);
  EXPECT_THROW(exec(*read_only, "CREATE TABLE t (a INT)"), DbError);
  read_only.reset();
  drop_database(testing::shared_server_admin(), options.db.name);
}

TEST(MakeProjectDb, MakeProject_UnreachableDatabaseIsOneLineError) {
  testing::TempDir dir("tharsis-mkproj");
  MakeProjectOptions options;
  options.project_dir = dir.path() + "/proj";
  options.name = "nodb";
  options.url_base = "http://127.0.0.1:8125/";
  options.db = DbConfig{"localhost", 0, dir.path() + "/no-such.sock", "root", "", "x"};
  options.uldl_dir_fanout = 2;
  auto made = make_project(options);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().find("creating database 'x' failed"), std::string::npos) << made.error();
  EXPECT_EQ(made.error().find('\n'), std::string::npos) << made.error();
}

TEST(MakeProjectCli, MakeProject_ExitCodesAndMessages) {
  // make_project is built next to this test binary (integration_tests depends on it).
  const char* bin_dir = std::getenv("THARSIS_BIN_DIR");
  std::string program = (bin_dir ? std::filesystem::path(bin_dir)
                                 : std::filesystem::read_symlink("/proc/self/exe").parent_path()) /
                        "make_project";
  ASSERT_TRUE(std::filesystem::exists(program)) << program;
  testing::TempDir dir("tharsis-mkproj-cli");
  std::string args = " --project_dir " + dir.path() +
                     "/proj --name cli --url_base "
                     "http://127.0.0.1:8126/ --db_user u --db_name d --no_db --uldl_dir_fanout 2";

  CommandRun help = run(program + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--project_dir"), std::string::npos);

  CommandRun first = run(program + args);
  EXPECT_EQ(first.exit_code, 0) << first.output;
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/proj/keys/upload_private"));

  CommandRun again = run(program + args);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.output, "make_project: project directory " + dir.path() +
                              "/proj already exists and is not empty; use --force to reuse it\n");

  CommandRun forced = run(program + args + " --force");
  EXPECT_EQ(forced.exit_code, 0) << forced.output;

  CommandRun missing = run(program + " --name cli");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.output.rfind("make_project: ", 0), 0u) << missing.output;
  EXPECT_EQ(missing.output.find('\n'), missing.output.size() - 1) << missing.output;

  CommandRun bad_number = run(program + args + " --key_bits lots");
  EXPECT_EQ(bad_number.exit_code, 1);
  EXPECT_NE(bad_number.output.find("key_bits"), std::string::npos) << bad_number.output;
}

}  // namespace
}  // namespace tharsis
