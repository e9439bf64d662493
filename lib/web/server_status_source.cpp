// Server status model from the database (see server_status_source.h).
#include "lib/web/server_status_source.h"

#include <algorithm>
#include <memory>

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

std::vector<QueueBacklogRow> queue_rows(const std::vector<QueueBacklog>& queues) {
  std::vector<QueueBacklogRow> rows;
  for (const auto& queue : queues) rows.push_back({queue.name, queue.count, queue.oldest_age});
  return rows;
}

std::vector<ResultStateCount> result_rows(const std::map<std::pair<int, int>, int64_t>& counts) {
  std::vector<ResultStateCount> rows;
  for (const auto& [key, count] : counts) rows.push_back({key.first, key.second, count});
  return rows;
}

ServerStatus load_server_status(const DbConfig& db_config, int64_t now, int64_t heartbeat_timeout) {
  ServerStatus status;
  try {
    std::unique_ptr<Database> db = Database::open(db_config);
    status.daemons = daemon_rows_from_heartbeats(fetch_heartbeats(*db), now, heartbeat_timeout);
    status.queues = queue_rows(queue_backlogs(*db, now));
    status.results = result_rows(results_by_state(*db));
    status.db_reachable = true;
  } catch (const DbError& e) {
    status = ServerStatus{};
    status.db_reachable = false;
    status.db_error = e.what();
  }
  return status;
}

}  // namespace tharsis
