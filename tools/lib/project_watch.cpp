// Implementation of tools/lib/project_watch.h.
#include "tools/lib/project_watch.h"

#include <sstream>

#include "db/state_names.h"
#include "db/states.h"
#include "lib/log.h"
#include "lib/stop_signal.h"

namespace tharsis {
namespace {

// BOINC's outcome names in lower case (db/state_names.h: "success", "client_error", ...);
// a result still unsent or in progress by its server state.
std::string outcome_name(int server_state, int outcome) {
  const auto state = static_cast<ServerState>(server_state);
  if (state == ServerState::Unsent || state == ServerState::InProgress) return lower_name(state);
  const auto value = static_cast<Outcome>(outcome);
  if (value == Outcome::Init) return "over_without_outcome";
  std::string name = lower_name(value);
  return name.empty() ? "outcome_" + std::to_string(outcome) : name;
}

std::string results_text(const std::map<std::pair<int, int>, int64_t>& results_by_state) {
  std::ostringstream out;
  bool first = true;
  for (const auto& [key, count] : results_by_state) {
    out << (first ? "" : ", ") << outcome_name(key.first, key.second) << " " << count;
    first = false;
  }
  return first ? "none" : out.str();
}

ProjectReading reading_of(const WorkunitProgress& w, const std::map<std::pair<int, int>, int64_t>& results) {
  ProjectReading r;
  std::ostringstream progress, summary;
  progress << "workunits " << w.with_canonical + w.errored << "/" << w.total << " done, " << w.errored
           << " errored, " << w.assimilated << " assimilated | results " << results_text(results);
  summary << "workunits " << w.total << " (" << w.with_canonical << " canonical, " << w.errored
          << " errored, " << w.assimilated << " assimilated, " << w.files_deleted
          << " files deleted); server results: " << results_text(results);
  r.progress = progress.str();
  r.summary = summary.str();
  r.settled = w.settled();
  return r;
}

}  // namespace

ProjectWatch::ProjectWatch(DbConfig config) : config_(std::move(config)) {}

ProjectWatch::~ProjectWatch() = default;

std::optional<ProjectReading> ProjectWatch::read(double now, bool with_results_by_state) {
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
    const WorkunitProgress workunits = workunit_progress(*db_);
    std::map<std::pair<int, int>, int64_t> results;
    if (with_results_by_state) results = results_by_state(*db_);
    if (failed_attempts_ > 0) log_info("watched project database reachable again");
    failed_attempts_ = 0;
    return reading_of(workunits, results);
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
