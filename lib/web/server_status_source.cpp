// Server status model from the database (see server_status_source.h).
#include "lib/web/server_status_source.h"

#include <algorithm>
#include <memory>

#include "db/file_store.h"
#include "lib/web/page.h"

namespace tharsis {

std::vector<DaemonStatusRow> daemon_rows_from_heartbeats(const std::vector<HeartbeatRow>& beats, int64_t now,
                                                         int64_t heartbeat_timeout) {
  std::vector<DaemonStatusRow> rows;
  rows.reserve(beats.size());
  for (const auto& beat : beats) {
    DaemonStatusRow row;
    row.name = beat.shard.n > 1 ? beat.name + "_" + std::to_string(beat.shard.id) : beat.name;
    row.host = beat.hostname;
    row.pid = beat.pid;
    row.last_heartbeat = beat.last_beat;
    row.running = beat.last_beat > 0 && now - beat.last_beat <= heartbeat_timeout;
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const DaemonStatusRow& a, const DaemonStatusRow& b) {
    return std::tie(a.name, a.host, a.pid) < std::tie(b.name, b.host, b.pid);
  });
  return rows;
}

std::vector<QueueBacklogRow> queue_rows(const std::vector<QueueBacklog>& queues,
                                        const std::optional<CensusSnapshot>& census) {
  std::vector<QueueBacklogRow> rows;
  for (const auto& queue : queues) {
    QueueBacklogRow row{queue.name, queue.count, queue.oldest_age, queue.capped, -1};
    if (queue.capped && census) {
      auto it = census->queue_items.find(queue.name);
      if (it != census->queue_items.end()) row.census_count = it->second;
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<ResultStateCount> result_rows(const std::map<std::pair<int, int>, int64_t>& counts) {
  std::vector<ResultStateCount> rows;
  for (const auto& [key, count] : counts) rows.push_back({key.first, key.second, count});
  return rows;
}

CensusStatus census_status(const std::optional<CensusSnapshot>& census,
                           const std::vector<DaemonStatusRow>& daemons, int64_t now) {
  CensusStatus out;
  if (!census) return out;
  out.present = true;
  out.taken_at = census->taken_at;
  out.duration_seconds = census->duration_seconds;
  out.interval_seconds = census->interval_seconds;
  std::vector<std::string> reasons;
  const int64_t age = now - census->taken_at;
  if (age > kCensusStaleIntervals * std::max<int64_t>(1, census->interval_seconds)) {
    reasons.push_back("taken " + format_duration(age) + " ago, more than " +
                      std::to_string(kCensusStaleIntervals) + " times its interval of " +
                      format_duration(census->interval_seconds));
  }
  auto daemon = std::find_if(daemons.begin(), daemons.end(),
                             [](const DaemonStatusRow& row) { return row.name == "census"; });
  if (daemon == daemons.end()) {
    reasons.push_back("no census daemon has reported a heartbeat");
  } else if (!daemon->running) {
    reasons.push_back("the census daemon is not running (last heartbeat " +
                      format_duration(now - daemon->last_heartbeat) + " ago)");
  }
  out.stale = !reasons.empty();
  for (const auto& reason : reasons) out.stale_reason += (out.stale_reason.empty() ? "" : "; ") + reason;
  return out;
}

ReplicaStatus replica_status(const std::optional<ReplicationState>& replication, int64_t newest_heartbeat,
                             int64_t now, int64_t heartbeat_timeout) {
  ReplicaStatus out;
  out.used = true;
  out.newest_heartbeat_age = newest_heartbeat > 0 ? now - newest_heartbeat : -1;
  if (replication) {
    out.replication_known = true;
    out.replicating = replication->io_running && replication->sql_running;
    if (out.replicating && replication->seconds_behind) out.lag_seconds = *replication->seconds_behind;
    if (!out.replicating) {
      out.stale = true;
      out.note = "replication stopped";
      if (!replication->last_error.empty()) out.note += ": " + replication->last_error;
    } else if (out.lag_seconds > kReplicaStaleLagSeconds) {
      out.stale = true;
      out.note = "the replica is " + format_duration(out.lag_seconds) + " behind the primary";
    } else {
      out.note =
          "the replica is " + format_duration(std::max<int64_t>(0, out.lag_seconds)) + " behind the primary";
    }
    return out;
  }
  if (out.newest_heartbeat_age < 0 || out.newest_heartbeat_age > heartbeat_timeout) {
    out.stale = true;
    out.note = out.newest_heartbeat_age < 0
                   ? "the replica holds no daemon heartbeat: it is behind, or no daemon ever ran"
                   : "the newest daemon heartbeat on the replica is " +
                         format_duration(out.newest_heartbeat_age) +
                         " old: the replica is that far behind, or every daemon has stopped";
  } else {
    out.note =
        "replication state not visible to the pages' account (REPLICA MONITOR); the newest daemon "
        "heartbeat on the replica is " +
        format_duration(out.newest_heartbeat_age) + " old";
  }
  return out;
}

ServerStatus load_server_status(const DbConfig& db_config, int64_t now, int64_t heartbeat_timeout,
                                bool from_replica) {
  ServerStatus status;
  try {
    std::unique_ptr<Database> db = Database::open(db_config);
    const std::vector<HeartbeatRow> beats = fetch_heartbeats(*db);
    status.daemons = daemon_rows_from_heartbeats(beats, now, heartbeat_timeout);
    if (from_replica) {
      int64_t newest = 0;
      for (const HeartbeatRow& beat : beats) newest = std::max(newest, beat.last_beat);
      status.replica = replica_status(read_replication_state(*db), newest, now, heartbeat_timeout);
    }
    const std::optional<CensusSnapshot> census = fetch_census(*db);
    status.queues = queue_rows(queue_backlogs(*db, now), census);
    // Without a snapshot, count live: right, but a scan of every result (the page says so).
    status.results = result_rows(census ? census->results : results_by_state(*db));
    status.census = census_status(census, status.daemons, now);
    try {
      status.file_delete_retries = count_file_delete_retries(*db);
    } catch (const DbError& e) {
      if (e.connection_lost()) throw;
      status.file_delete_retries = -1;  // no file_delete_retry table: an older schema
    }
    status.db_reachable = true;
  } catch (const DbError& e) {
    status = ServerStatus{};
    status.db_reachable = false;
    status.db_error = e.what();
  }
  return status;
}

}  // namespace tharsis
