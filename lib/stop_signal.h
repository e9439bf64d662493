// How a daemon learns it should stop: SIGTERM/SIGINT (an async-signal-safe flag) or the
// project's stop trigger file `stop_daemons` (BOINC's convention, made by tools/stop).
// The loop checks between units of work, never inside a transaction.
#pragma once

#include <string>

namespace tharsis {

void install_stop_signal_handlers();
bool stop_signalled();
void reset_stop_signal();  // tests
bool stop_trigger_present(const std::string& project_dir);
// Sleeps up to `seconds`, returning early (false) when a stop is signalled.
bool interruptible_sleep(double seconds);
// Back-off before reconnect attempt `attempt` (1, 2, ...): 1, 2, 4, ... capped at 30 s.
double reconnect_backoff_seconds(int attempt);

}  // namespace tharsis
