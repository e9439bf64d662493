// tharsis-sim's read-only view of the watched project's database (--project_dir): the
// workunits' progress and the results by state for the progress and summary lines, and
// whether the project has settled (--until_settled), as client/lib/project_progress.h asks. The database may
// go away (restart, crash) while the volunteers compute: like the daemons (lib/daemon/daemon_loop.h), the
// watch waits it out, reconnecting with reconnect_backoff_seconds (1 s doubling to 30 s),
// logging once when an outage starts and once when it ends. It never holds up the hosts:
// while the database is away a read returns nothing at once, and a reconnect is tried
// only when the back-off allows (each try is bounded by Database's own connect retries).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "client/lib/project_progress.h"
#include "db/database.h"
#include "db/queue_stats.h"
#include "lib/config/db_config.h"

namespace tharsis {

class ProjectWatch : public ProjectProgressSource {
 public:
  explicit ProjectWatch(DbConfig config);
  ~ProjectWatch() override;

  // Reads the project at wall time `now`; nullopt while the database is unreachable (or
  // its reconnect back-off is running). A lost connection or failed connect is waited
  // out; any other database error is thrown (DbError): a bug or a broken schema, which
  // waiting would not cure.
  std::optional<ProjectReading> read(double now, bool with_results_by_state) override;

 private:
  void note_unreachable(const DbError& error, double now);

  DbConfig config_;
  std::unique_ptr<Database> db_;
  int failed_attempts_ = 0;  // in the current outage
  double retry_at_ = 0;      // no reconnect before this
};

}  // namespace tharsis
