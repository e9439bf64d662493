// Implementation of lib/stop_signal.h.
#include "lib/stop_signal.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace tharsis {
namespace {

volatile sig_atomic_t g_stop = 0;

void on_stop_signal(int) { g_stop = 1; }

}  // namespace

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // Restart interrupted reads and writes: a signal must not break the statement in
  // flight; the loop notices the flag once the current unit of work is done.
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

bool stop_signalled() { return g_stop != 0; }
void reset_stop_signal() { g_stop = 0; }

bool stop_trigger_present(const std::string& project_dir) {
  return access((project_dir + "/stop_daemons").c_str(), F_OK) == 0;
}

bool interruptible_sleep(double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (stop_signalled()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !stop_signalled();
}

double reconnect_backoff_seconds(int attempt) {
  return std::min(30.0, std::pow(2.0, std::max(0, attempt - 1)));
}

}  // namespace tharsis
