// Read-only queries behind the reclustering status page (docs/reclustering.md): per app, the latest
// failure_stat rows (the α/β estimates and the cluster size k in force, a time series read
// backwards along failure_stat_app_time), the tasks waiting to be clustered, and the hosts
// active recently (r of the model).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/status_rows.h"

namespace tharsis {

struct ReclusterHistory {
  int64_t appid = 0;
  std::string app_name;
  std::vector<ReclusterSample> series;  // oldest first, at most `limit` of the latest
  std::string model;                    // of the latest estimate ("TFM", "JFM" or "")
  int64_t window_tasks = 0;             // tasks the latest estimate was made from
};

// Apps with at least one failure_stat row, by app id.
std::vector<ReclusterHistory> fetch_recluster_histories(Database& db, int limit);

// Tasks of the app waiting to be put into a job (cluster_task.state 0, workunitid 0).
int64_t count_waiting_tasks(Database& db, int64_t appid);

// Hosts whose last scheduler RPC was at or after `since`.
int64_t count_active_hosts(Database& db, int64_t since);

}  // namespace tharsis
