// Implementation of db/heartbeat_store.h.
#include "db/heartbeat_store.h"

#include "db/sql.h"

namespace tharsis {

void record_heartbeat(Database& db, const HeartbeatRow& b) {
  exec(db,
       "INSERT INTO daemon_heartbeat (name, mod_n, mod_id, hostname, pid, start_time, last_beat, "
       "units_done) VALUES (?,?,?,?,?,?,?,?) ON DUPLICATE KEY UPDATE hostname = VALUES(hostname), "
       "pid = VALUES(pid), start_time = VALUES(start_time), last_beat = VALUES(last_beat), "
       "units_done = VALUES(units_done)",
       b.name, b.shard.n, b.shard.id, b.hostname, b.pid, b.start_time, b.last_beat, b.units_done);
}

std::vector<HeartbeatRow> fetch_heartbeats(Database& db) {
  auto rows = query(db,
                    "SELECT name, mod_n, mod_id, hostname, pid, start_time, last_beat, units_done "
                    "FROM daemon_heartbeat ORDER BY name, mod_n, mod_id");
  std::vector<HeartbeatRow> out;
  while (rows->next()) {
    HeartbeatRow b;
    b.name = rows->getString("name");
    b.shard = Shard{rows->getInt("mod_n"), rows->getInt("mod_id")};
    b.hostname = rows->getString("hostname");
    b.pid = rows->getInt("pid");
    b.start_time = rows->getInt64("start_time");
    b.last_beat = rows->getInt64("last_beat");
    b.units_done = rows->getInt64("units_done");
    out.push_back(b);
  }
  return out;
}

}  // namespace tharsis
