// The stock BOINC client (Debian boinc-client: /usr/bin/boinc and /usr/bin/boinccmd) run
// headless for integration tests, nothing about it changed: its data directory is a
// scratch dir, GUI RPC on a free 127.0.0.1 port with a password we choose, no GPUs, no
// benchmarks, no fetches from boinc.berkeley.edu, short back-offs, and preferences that
// let it compute on a busy machine. It attaches to a project the way a volunteer does,
// with `boinccmd --project_attach MASTER_URL AUTHENTICATOR`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tests/support/child_process.h"

namespace tharsis::testing {

class StockBoincClient {
 public:
  static constexpr const char* kClient = "/usr/bin/boinc";
  static constexpr const char* kBoinccmd = "/usr/bin/boinccmd";
  static bool installed();  // both programs present and executable

  // Starts the client in `dir` (created) and waits until it answers GUI RPCs. Throws if it
  // does not start.
  explicit StockBoincClient(const std::string& dir);
  ~StockBoincClient();  // asks it to exit (SIGTERM, which ends its tasks too), then kills
  StockBoincClient(const StockBoincClient&) = delete;
  StockBoincClient& operator=(const StockBoincClient&) = delete;

  // Runs boinccmd against this client; returns its exit status, output in `output`.
  int boinccmd(const std::vector<std::string>& args, std::string* output = nullptr) const;
  int attach(const std::string& master_url, const std::string& authenticator) const;
  int update(const std::string& master_url) const;  // an immediate scheduler RPC

  std::string log() const;  // the client's stdout: its event log
  bool log_contains(const std::string& text) const { return log().find(text) != std::string::npos; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::string password_;
  int port_ = 0;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace tharsis::testing
