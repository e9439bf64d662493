// Fills the server status model from the project database (read only): heartbeats become
// daemon rows, queue backlogs are counted live up to a cap (db/queue_stats.h), and results
// by state come from the census daemon's snapshot (db/census_store.h), so a view reads
// no more than a few thousand index entries however big the project. The status page
// may run on another host than the daemons, so "running" means a fresh heartbeat, not a
// live pid.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "db/census_store.h"
#include "db/heartbeat_store.h"
#include "db/queue_stats.h"
#include "db/replication_state.h"
#include "db/status_rows.h"

namespace tharsis {

// Seconds after its last heartbeat that a daemon still counts as running. Daemons beat
// after every pass and sleep 5 s by default when idle, so two minutes is many missed beats.
inline constexpr int64_t kDefaultHeartbeatTimeout = 120;

// One row per heartbeat, instance named "name" or "name_<mod_id>" when sharded (as
// tools/status and tools/start name them), sorted by name then host.
std::vector<DaemonStatusRow> daemon_rows_from_heartbeats(const std::vector<HeartbeatRow>& beats, int64_t now,
                                                         int64_t heartbeat_timeout);
// Live queue counts; a capped one gets the census's exact count of that queue, if any.
std::vector<QueueBacklogRow> queue_rows(const std::vector<QueueBacklog>& queues,
                                        const std::optional<CensusSnapshot>& census = std::nullopt);
std::vector<ResultStateCount> result_rows(const std::map<std::pair<int, int>, int64_t>& counts);

// A snapshot older than this many of its intervals is stale.
inline constexpr int64_t kCensusStaleIntervals = 3;

// How to present the snapshot at `now`: stale when older than kCensusStaleIntervals times
// its interval, or when the census daemon (its row in `daemons`) is not running or never
// beat. No snapshot: present = false (the page counts live).
CensusStatus census_status(const std::optional<CensusSnapshot>& census,
                           const std::vector<DaemonStatusRow>& daemons, int64_t now);

// A replica lagging more than this is stale (its figures older than a status view expects).
inline constexpr int64_t kReplicaStaleLagSeconds = 60;

// How current a replica's figures are at `now`: stale when it does not replicate or lags
// more than kReplicaStaleLagSeconds; when it cannot tell (no privilege), stale when even its
// newest daemon heartbeat (0: none) is older than heartbeat_timeout: the replica is that far
// behind, or every daemon has stopped — the note says both.
ReplicaStatus replica_status(const std::optional<ReplicationState>& replication, int64_t newest_heartbeat,
                             int64_t now, int64_t heartbeat_timeout);

// Everything, from the database: results from the census snapshot, or counted live when
// there is none yet. A DbError (database unreachable) is caught and reported in the model
// as db_reachable = false with its message.
// With from_replica, db_config is a replica's and `replica` says how current it is.
ServerStatus load_server_status(const DbConfig& db_config, int64_t now, int64_t heartbeat_timeout,
                                bool from_replica = false);

}  // namespace tharsis
