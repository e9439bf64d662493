// Implementation of tests/support/stock_boinc_client.h.
#include "tests/support/stock_boinc_client.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "lib/text_file.h"
#include "tests/support/test_web_server.h"

namespace tharsis::testing {
namespace {

// Event log flags the tests read, and client options for a fast, quiet test run.
constexpr const char* kCcConfig =
    "<cc_config>\n"
    "  <log_flags>\n    <task/>\n    <file_xfer/>\n    <sched_ops/>\n    <sched_op_debug/>\n"
    "    <task_debug/>\n  </log_flags>\n"
    "  <options>\n"
    "    <allow_multiple_clients>1</allow_multiple_clients>\n"  // other clients may run here
    "    <fetch_minimal_work>1</fetch_minimal_work>\n"          // one job per CPU at most
    "    <report_results_immediately>1</report_results_immediately>\n"
    "    <no_gpus>1</no_gpus>\n"
    "  </options>\n"
    "</cc_config>\n";

// Compute whatever the machine's load (the default suspends above 25% non-BOINC CPU).
constexpr const char* kPrefsOverride =
    "<global_preferences>\n  <run_if_user_active>1</run_if_user_active>\n"
    "  <run_gpu_if_user_active>0</run_gpu_if_user_active>\n  <suspend_cpu_usage>0</suspend_cpu_usage>\n"
    "  <cpu_usage_limit>100</cpu_usage_limit>\n  <max_ncpus_pct>100</max_ncpus_pct>\n"
    "  <idle_time_to_run>0</idle_time_to_run>\n</global_preferences>\n";

std::string quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

bool StockBoincClient::installed() { return access(kClient, X_OK) == 0 && access(kBoinccmd, X_OK) == 0; }

StockBoincClient::StockBoincClient(const std::string& dir) : dir_(dir), password_("tharsis-test-rpc") {
  std::filesystem::create_directories(dir_);
  for (const auto& [name, text] :
       {std::pair{"cc_config.xml", kCcConfig}, std::pair{"global_prefs_override.xml", kPrefsOverride},
        std::pair{"gui_rpc_auth.cfg", password_.c_str()}}) {
    if (!write_text_file(dir_ + "/" + name, text, 0600).ok())
      throw std::runtime_error("cannot write " + dir_);
  }
  port_ = free_local_port();
  process_ = std::make_unique<ChildProcess>(
      kClient,
      std::vector<std::string>{"--dir", dir_, "--gui_rpc_port", std::to_string(port_), "--no_gpus",
                               "--skip_cpu_benchmarks", "--no_info_fetch", "--sched_retry_delay_min", "1",
                               "--sched_retry_delay_max", "10", "--pers_retry_delay_min", "1",
                               "--pers_retry_delay_max", "10"},
      dir_ + "/stdoutdae.txt");
  for (int attempt = 0; attempt < 300; ++attempt) {  // up to ~30 s on a loaded machine
    if (!process_->running())
      throw std::runtime_error("boinc exited at start; see " + dir_ + "/stdoutdae.txt");
    if (boinccmd({"--get_cc_status"}) == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("boinc does not answer GUI RPCs; see " + dir_ + "/stdoutdae.txt");
}

StockBoincClient::~StockBoincClient() {
  process_->signal(SIGTERM);
  process_->wait(20);  // then ~ChildProcess kills what is left
}

int StockBoincClient::boinccmd(const std::vector<std::string>& args, std::string* output) const {
  std::string command =
      std::string(kBoinccmd) + " --host 127.0.0.1:" + std::to_string(port_) + " --passwd " + quote(password_);
  for (const auto& arg : args) command += " " + quote(arg);
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return -1;
  std::string text;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  int status = pclose(pipe);
  if (output) *output = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int StockBoincClient::attach(const std::string& master_url, const std::string& authenticator) const {
  return boinccmd({"--project_attach", master_url, authenticator});
}

int StockBoincClient::update(const std::string& master_url) const {
  return boinccmd({"--project", master_url, "update"});
}

std::string StockBoincClient::log() const {
  auto text = read_text_file(dir_ + "/stdoutdae.txt");
  return text.ok() ? *text : std::string();
}

}  // namespace tharsis::testing
