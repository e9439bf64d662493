// Implementation of db/recluster_status_queries.h.
#include "db/recluster_status_queries.h"

#include <algorithm>

#include "db/sql.h"
#include "db/states.h"

namespace tharsis {

std::vector<ReclusterHistory> fetch_recluster_histories(Database& db, int limit) {
  std::vector<ReclusterHistory> out;
  auto apps = query(db, "SELECT id, name FROM app ORDER BY id");
  while (apps->next()) out.push_back({apps->getInt64(1), apps->getString(2), {}, "", 0});
  for (auto& app : out) {
    auto rows =
        query(db,
              "SELECT time, alpha, beta, cluster_size, model, tasks FROM failure_stat WHERE appid = ? "
              "ORDER BY time DESC, id DESC LIMIT ?",
              app.appid, limit);
    while (rows->next()) {
      if (app.series.empty()) {
        app.model = rows->getString(5);
        app.window_tasks = rows->getInt64(6);
      }
      app.series.push_back({rows->getInt64(1), static_cast<double>(rows->getDouble(2)),
                            static_cast<double>(rows->getDouble(3)), rows->getInt(4)});
    }
    std::reverse(app.series.begin(), app.series.end());
  }
  std::erase_if(out, [](const ReclusterHistory& app) { return app.series.empty(); });
  return out;
}

int64_t count_waiting_tasks(Database& db, int64_t appid) {
  // A waiting task has no job yet: the (appid, state) index answers it.
  return query_int(db, "SELECT COUNT(*) FROM cluster_task WHERE appid = ? AND state = ?", appid,
                   ClusterTaskState::Waiting);
}

int64_t count_active_hosts(Database& db, int64_t since) {
  return query_int(db, "SELECT COUNT(*) FROM host WHERE rpc_time >= ?", since);
}

}  // namespace tharsis
