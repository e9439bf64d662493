// A throwaway project for integration tests: make_project's layout in a temp dir (small
// fan-out, 512-bit keys for speed) wired to a fresh test database, with an app and an
// output template ready for create_workunit.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "lib/config/project_config.h"
#include "lib/result.h"
#include "tests/support/test_database.h"
#include "tools/lib/make_project.h"

namespace tharsis::testing {

class TestProject {
 public:
  // url_base: where the project will be served (the master, download and upload URLs the
  // stock BOINC client follows are built from it).
  // admin: the server to make the database on (default: the shared test server); with
  // fall-backs (a Galera cluster), config.xml lists every node in <db_nodes>.
  explicit TestProject(const std::string& url_base = "http://127.0.0.1:8080/",
                       const std::optional<DbConfig>& admin = std::nullopt);
  const ProjectConfig& config() const { return config_; }
  const std::string& dir() const { return dir_.path(); }
  std::unique_ptr<Database> open() const { return Database::open(config_.db); }
  int64_t appid() const { return appid_; }
  const std::string& output_template() const { return output_template_; }
  // Version 100 of the app "example" for `platform`, a one-line shell script in the project
  // directory, published as an admin would: what the scheduler sends a volunteer's host.
  Status publish_example_version(Database& db, const std::string& platform) const;

 private:
  TempDir dir_;
  TestDatabase database_;
  ProjectConfig config_;
  int64_t appid_ = 0;
  std::string output_template_;
};

// make_project's options for project `name` in `dir`/p with its own database on a
// dedicated server (512-bit keys, fan-out 4, no web server): for tests that stop the DB.
MakeProjectOptions dedicated_project_options(const DedicatedServer& server, const std::string& dir,
                                             const std::string& name);

}  // namespace tharsis::testing
