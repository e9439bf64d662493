// Implementation of tests/support/live_project.h.
#include "tests/support/live_project.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "client/lib/example_kernel.h"
#include "db/queue_stats.h"
#include "db/user_store.h"
#include "lib/text_file.h"
#include "tools/lib/app_admin.h"
#include "tools/lib/make_project.h"

namespace tharsis::testing {
namespace {

constexpr const char* kPlatform = "x86_64-pc-linux-gnu";
const std::vector<std::string> kDaemons{"transitioner", "validator", "assimilator", "file_deleter"};

std::string example_input(const std::string& wu_name) {
  return "seed " + wu_name + "\niterations 50\nterms 2000\n";
}

}  // namespace

LiveProject::LiveProject(const std::optional<DbConfig>& admin) {
  int port = free_local_port();
  project_ = std::make_unique<TestProject>("http://127.0.0.1:" + std::to_string(port) + "/", admin);
  config_ = project_->config();
  db_ = project_->open();
  // The real example app, signed with the project's code-signing key by add_app's code.
  publish_app("example", "example_app");
  server_ = std::make_unique<TestWebServer>(*project_, port);
}

void LiveProject::edit_config(const std::function<void(ProjectConfig&)>& edit) {
  edit(config_);
  Status written = write_text_file(config_.project_dir + "/config.xml", render_project_config(config_), 0644);
  if (!written.ok()) throw std::runtime_error("live project: " + written.error());
}

void LiveProject::publish_app(const std::string& app, const std::string& program) {
  auto appid = ensure_app(*db_, app, "bitwise");
  auto published =
      appid.ok()
          ? publish_app_version(*db_, config_, {app, kPlatform, 100, {built_programs_dir() + "/" + program}})
          : Result<int64_t>(make_error(appid.error()));
  if (!published.ok()) throw std::runtime_error("live project: " + published.error());
}

LiveProject::~LiveProject() { stop_daemons(); }

std::string LiveProject::add_volunteer(const std::string& name) {
  UserRow user;
  user.name = name;
  user.email_addr = name + "@example.org";
  user.authenticator = "key_" + name + "_0123456789abcdef";
  insert_user(*db_, user);
  return user.authenticator;
}

void LiveProject::create_example_workunits(const std::string& prefix, int count, int quorum,
                                           int delay_bound) {
  std::string dir = project_->dir() + "/inputs_" + prefix;
  std::filesystem::create_directories(dir);
  std::ofstream bulk(dir + "/jobs");
  for (int i = 0; i < count; ++i) {
    std::string wu = prefix + std::to_string(i);
    std::ofstream(dir + "/" + wu + ".in") << example_input(wu);
    bulk << wu << " " << dir << "/" << wu << ".in=in\n";
  }
  bulk.close();
  ChildProcess create("create_work",
                      {"--project_dir", config().project_dir, "--app", "example", "--bulk", dir + "/jobs",
                       "--min_quorum", std::to_string(quorum), "--target_nresults", std::to_string(quorum),
                       "--delay_bound", std::to_string(delay_bound), "--rsc_fpops_est", "1e8"},
                      config().log_dir + "/create_work.log");
  if (create.wait(120) != 0)
    throw std::runtime_error("create_work failed; see " + config().log_dir + "/create_work.log");
}

std::string LiveProject::expected_output(const std::string& wu_name) {
  auto job = parse_example_input(example_input(wu_name));
  return run_example_job(*job);
}

void LiveProject::start_daemons(const std::vector<std::string>& extra) {
  for (const auto& name : kDaemons) start_daemon(name);
  for (const auto& name : extra) start_daemon(name);
}

void LiveProject::start_daemon(const std::string& name, const std::vector<std::string>& args) {
  std::vector<std::string> all{"--project_dir", config().project_dir, "--sleep", "0.05"};
  all.insert(all.end(), args.begin(), args.end());
  std::string instance = name;
  for (int n = 2; daemons_.count(instance) != 0; ++n) instance = name + "_" + std::to_string(n);
  daemons_[instance] = std::make_unique<ChildProcess>(name, all, config().log_dir + "/" + instance + ".log");
}

TestWebServer& LiveProject::add_scheduler_host(int db_node) {
  const std::string node = std::to_string(db_node);
  more_servers_.push_back(std::make_unique<TestWebServer>(
      *project_, 0, "apache_" + std::to_string(more_servers_.size() + 2),
      std::vector<std::string>{"SetEnv THARSIS_DB_NODE " + node, "FcgidInitialEnv THARSIS_DB_NODE " + node}));
  return *more_servers_.back();
}

void LiveProject::set_scheduler_urls(const std::vector<std::string>& urls) {
  edit_config([&urls](ProjectConfig& c) { c.scheduler_urls = urls; });
  Status written =
      write_text_file(config_.project_dir + "/html/user/index.html", render_master_page(config_), 0644);
  if (!written.ok()) throw std::runtime_error("live project: " + written.error());
}

std::map<std::string, int> LiveProject::daemon_pids() const {
  std::map<std::string, int> pids;
  for (const auto& [name, d] : daemons_) pids[name] = d->pid();
  return pids;
}

::testing::AssertionResult LiveProject::stop_daemons() {
  for (auto& [name, d] : daemons_) d->signal(SIGTERM);
  std::string unclean;
  for (auto& [name, d] : daemons_) {
    const int code = d->wait(20);
    if (code == 0) continue;
    auto log = read_text_file(config().log_dir + "/" + name + ".log");
    std::string tail = log.ok() ? *log : log.error();
    if (tail.size() > 2000) tail = "..." + tail.substr(tail.size() - 2000);
    unclean += "\n" + name + " exited with " + std::to_string(code) + "; the end of its log:\n" + tail;
  }
  daemons_.clear();
  if (unclean.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "daemons that did not stop cleanly:" << unclean;
}

std::vector<std::string> LiveProject::simulation_args(const std::string& prefix,
                                                      const std::vector<std::string>& host_faults,
                                                      int max_seconds) {
  std::vector<std::string> args{"--project_url",       master_url(),
                                "--max_request_delay", "0",
                                "--max_backoff",       "0.5",
                                "--transfer_backoff",  "0.2",
                                "--project_dir",       config().project_dir,
                                "--max_seconds",       std::to_string(max_seconds)};
  for (size_t i = 0; i < host_faults.size(); ++i) {
    args.push_back("--host");
    args.push_back("auth=" + add_volunteer(prefix + std::to_string(i)) + "," + host_faults[i]);
  }
  return args;
}

std::unique_ptr<ChildProcess> LiveProject::start_client(const std::string& name, const std::string& data_dir,
                                                        const std::vector<std::string>& args) {
  std::vector<std::string> all{"--data_dir", data_dir};
  all.insert(all.end(), args.begin(), args.end());
  // Watching the project's database is tharsis-sim's; the volunteer client has no database.
  const bool watches = std::find(args.begin(), args.end(), "--project_dir") != args.end();
  return std::make_unique<ChildProcess>(watches ? "tharsis-sim" : "tharsis-client", all,
                                        config().log_dir + "/" + name + ".log");
}

bool LiveProject::wait_settled(double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (workunit_progress(*db_).settled()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace tharsis::testing
