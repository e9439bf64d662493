// Fills the server status model from the project database (read only): heartbeats become
// daemon rows, and the queue and result counts come from db/queue_stats.h. The status page
// may run on another host than the daemons, so "running" means a fresh heartbeat, not a
// live pid.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "db/heartbeat_store.h"
#include "db/queue_stats.h"
#include "lib/web/status_model.h"

namespace tharsis {

// Seconds after its last heartbeat that a daemon still counts as running. Daemons beat
// after every pass and sleep 5 s by default when idle, so two minutes is many missed beats.
inline constexpr int64_t kDefaultHeartbeatTimeout = 120;

// One row per heartbeat, instance named "name" or "name_<mod_id>" when sharded (as
// tools/status and tools/start name them), sorted by name then host.
std::vector<DaemonStatusRow> daemon_rows_from_heartbeats(const std::vector<HeartbeatRow>& beats, int64_t now,
                                                         int64_t heartbeat_timeout);
std::vector<QueueBacklogRow> queue_rows(const std::vector<QueueBacklog>& queues);
std::vector<ResultStateCount> result_rows(const std::map<std::pair<int, int>, int64_t>& counts);

// Everything, from the database; a DbError (database unreachable) is caught and reported
// in the model as db_reachable = false with its message.
ServerStatus load_server_status(const DbConfig& db_config, int64_t now, int64_t heartbeat_timeout);

}  // namespace tharsis
