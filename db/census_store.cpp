// Implementation of db/census_store.h.
#include "db/census_store.h"

#include "db/queue_stats.h"
#include "db/sql.h"

namespace tharsis {

CensusSnapshot count_census(Database& db, int64_t now) {
  CensusSnapshot snapshot;
  snapshot.taken_at = now;
  snapshot.results = results_by_state(db);
  for (const auto& queue : queue_backlogs(db, now, /*cap=*/0)) snapshot.queue_items[queue.name] = queue.count;
  return snapshot;
}

void store_census(Database& db, const CensusSnapshot& snapshot) {
  db.transaction([&](Database& d) {
    exec(d, "DELETE FROM census_result");
    for (const auto& [key, count] : snapshot.results) {
      exec(d, "INSERT INTO census_result (server_state, outcome, results) VALUES (?,?,?)", key.first,
           key.second, count);
    }
    exec(d, "DELETE FROM census_queue");
    for (const auto& [name, items] : snapshot.queue_items) {
      exec(d, "INSERT INTO census_queue (name, items) VALUES (?,?)", name, items);
    }
    exec(d,
         "INSERT INTO census_run (id, taken_at, duration, interval_seconds) VALUES (1,?,?,?) "
         "ON DUPLICATE KEY UPDATE taken_at = VALUES(taken_at), duration = VALUES(duration), "
         "interval_seconds = VALUES(interval_seconds)",
         snapshot.taken_at, snapshot.duration_seconds, snapshot.interval_seconds);
  });
}

std::optional<CensusSnapshot> fetch_census(Database& db) {
  // One statement, so all rows come from one commit of store_census: under READ COMMITTED
  // separate SELECTs could each see a different snapshot. Columns: kind, a, b, c, name.
  auto rows = query(db,
                    "SELECT 1, taken_at, duration, interval_seconds, '' FROM census_run WHERE id = 1 "
                    "UNION ALL SELECT 2, server_state, outcome, results, '' FROM census_result "
                    "UNION ALL SELECT 3, items, 0, 0, name FROM census_queue");
  CensusSnapshot snapshot;
  bool have_run = false;
  while (rows->next()) {
    switch (rows->getInt(1)) {
      case 1:
        have_run = true;
        snapshot.taken_at = rows->getInt64(2);
        snapshot.duration_seconds = static_cast<double>(rows->getDouble(3));
        snapshot.interval_seconds = rows->getInt64(4);
        break;
      case 2:
        snapshot.results[{static_cast<int>(rows->getInt64(2)), static_cast<int>(rows->getDouble(3))}] =
            rows->getInt64(4);
        break;
      default:
        snapshot.queue_items[rows->getString(5)] = rows->getInt64(2);
    }
  }
  if (!have_run) return std::nullopt;
  return snapshot;
}

}  // namespace tharsis
