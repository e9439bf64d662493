// SQL for daemon_heartbeat: each daemon instance's last sign of life, read by
// tools/status and the status pages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/shard.h"

namespace tharsis {

struct HeartbeatRow {
  std::string name;
  Shard shard;
  std::string hostname;
  int pid = 0;
  int64_t start_time = 0;
  int64_t last_beat = 0;
  int64_t units_done = 0;
};

void record_heartbeat(Database& db, const HeartbeatRow& beat);
std::vector<HeartbeatRow> fetch_heartbeats(Database& db);

}  // namespace tharsis
