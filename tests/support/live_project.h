// A whole running project for end-to-end tests with real volunteers: a TestProject whose
// URLs name the port its private Apache listens on, the example app's real executable
// published as a signed app version (other built apps on request), volunteer accounts,
// plain example workunits (their expected output known), the four daemons (and others
// asked for) as processes, and tharsis-client processes.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/test_project.h"
#include "tests/support/test_web_server.h"

namespace tharsis::testing {

class LiveProject {
 public:
  // admin: as TestProject's (a Galera cluster's node with its fall-backs).
  explicit LiveProject(const std::optional<DbConfig>& admin = std::nullopt);
  ~LiveProject();

  const TestProject& project() const { return *project_; }
  const ProjectConfig& config() const { return config_; }
  // Changes the project's settings, in memory and in config.xml (which the daemon and
  // CGI processes started afterwards read).
  void edit_config(const std::function<void(ProjectConfig&)>& edit);
  // Publishes a built program (beside the test binary) as a signed version of `app`,
  // adding the app if missing.
  void publish_app(const std::string& app, const std::string& program);
  Database& db() { return *db_; }
  std::string master_url() const { return config().master_url; }
  // http://127.0.0.1:<its Apache's port>/<path>
  std::string url(const std::string& path) const { return server_->url(path); }
  // The project's Apache, e.g. to halt() and start() it (an outage of the web server).
  TestWebServer& web_server() { return *server_; }
  // Another scheduler host: a second Apache serving this project on its own port, its
  // CGIs on database node `db_node` (THARSIS_DB_NODE), owned by this project.
  TestWebServer& add_scheduler_host(int db_node);
  // Rewrites the master page to list these schedulers (as make_project --scheduler_url).
  void set_scheduler_urls(const std::vector<std::string>& urls);

  // A volunteer account; returns its authenticator.
  std::string add_volunteer(const std::string& name);
  // Workunits "<prefix><i>" of the example app, created in bulk by tools/create_work; the
  // input of each names its seed, so expected_output(wu) is known.
  void create_example_workunits(const std::string& prefix, int count, int quorum, int delay_bound);
  static std::string expected_output(const std::string& wu_name);

  // transitioner, validator, assimilator, file_deleter and the `extra` ones (e.g.
  // "clusterer") with a short --sleep.
  void start_daemons(const std::vector<std::string>& extra = {});
  // One more daemon with a short --sleep and `args` (e.g. graph_scheduler
  // --prefer_seconds 2); stopped with the others. A second instance of one daemon (a
  // shard) is named and logged as <name>_2, <name>_3, ...
  void start_daemon(const std::string& name, const std::vector<std::string>& args = {});
  // The pid of each daemon running from here, by name.
  std::map<std::string, int> daemon_pids() const;
  // Stops them with SIGTERM; success when each exited cleanly, otherwise a failure naming
  // each daemon that did not (its exit code, -1 for a signal or still running after 20 s)
  // with the last lines of its log.
  ::testing::AssertionResult stop_daemons();
  // tharsis-client arguments for simulated hosts: this project's URL, quick retries (no
  // request delay, backoffs of 0.5 s and 0.2 s for transfers), --project_dir (for
  // progress lines), --max_seconds, and one --host per entry of `host_faults` (e.g.
  // "ncpus=2,job_failure=0.1"), each for a new volunteer "<prefix><i>".
  std::vector<std::string> simulation_args(const std::string& prefix,
                                           const std::vector<std::string>& host_faults, int max_seconds);
  // Starts tharsis-client with `args` (after --data_dir DIR), logging to log/<name>.log;
  // tharsis-sim when `args` name a --project_dir to watch (simulation_args do).
  std::unique_ptr<ChildProcess> start_client(const std::string& name, const std::string& data_dir,
                                             const std::vector<std::string>& args);
  // Waits until every workunit is finished, assimilated, its files deleted and no result
  // pending (db/queue_stats.h), at most `seconds`; returns whether it settled.
  bool wait_settled(double seconds);

 private:
  std::unique_ptr<TestProject> project_;
  ProjectConfig config_;
  std::unique_ptr<TestWebServer> server_;
  std::vector<std::unique_ptr<TestWebServer>> more_servers_;
  std::unique_ptr<Database> db_;
  std::map<std::string, std::unique_ptr<ChildProcess>> daemons_;
};

}  // namespace tharsis::testing
