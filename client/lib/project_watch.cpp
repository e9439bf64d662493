// Implementation of client/lib/project_watch.h.
#include "client/lib/project_watch.h"

#include "lib/daemon/stop_signal.h"
#include "lib/log.h"

namespace tharsis {

ProjectWatch::ProjectWatch(DbConfig config) : config_(std::move(config)) {}

ProjectWatch::~ProjectWatch() = default;

std::optional<WatchReading> ProjectWatch::read(double now, bool with_results_by_state) {
  if (!db_) {
    if (now < retry_at_) return std::nullopt;
    try {
      db_ = Database::open(config_);
    } catch (const DbError& e) {
      // Any failure to connect is waited out (as the daemons do): a server starting up or
      // shutting down refuses with codes other than a dead socket's.
      note_unreachable(e, now);
      return std::nullopt;
    }
  }
  try {
    WatchReading reading;
    reading.workunits = workunit_progress(*db_);
    if (with_results_by_state) reading.results_by_state = results_by_state(*db_);
    if (failed_attempts_ > 0) log_info("watched project database reachable again");
    failed_attempts_ = 0;
    return reading;
  } catch (const DbError& e) {
    if (!e.connection_lost()) throw;
    note_unreachable(e, now);
    return std::nullopt;
  }
}

void ProjectWatch::note_unreachable(const DbError& error, double now) {
  db_.reset();
  double wait = reconnect_backoff_seconds(++failed_attempts_);
  retry_at_ = now + wait;
  if (failed_attempts_ == 1) {
    log_warning("watched project database unreachable (", error.what(),
                "); the hosts carry on, reconnecting with back-off (1 s doubling to 30 s)");
  }
}

}  // namespace tharsis
