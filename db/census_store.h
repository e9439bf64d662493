// SQL for the census snapshot (tables census_run, census_result, census_queue): the counts
// that scan big tables, taken now and then by the census daemon (daemons/census/) so the
// status pages read a few rows instead of counting a million results per view.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "db/database.h"

namespace tharsis {

struct CensusSnapshot {
  int64_t taken_at = 0;          // when the counting began (Unix seconds)
  double duration_seconds = 0;   // how long the counting took
  int64_t interval_seconds = 0;  // the daemon's time between snapshots when it took this one
  std::map<std::pair<int, int>, int64_t> results;  // (server_state, outcome) -> results
  std::map<std::string, int64_t> queue_items;      // exact backlog by queue name
};

// Counts everything the snapshot holds, live (results_by_state, and queue_backlogs with
// no cap): the expensive reads; each count is one statement, consistent in itself.
// taken_at = now; duration and interval are the caller's to fill.
CensusSnapshot count_census(Database& db, int64_t now);

// Replaces the stored snapshot with `snapshot` in one transaction: a reader sees the old
// one or the new one, never a mix.
void store_census(Database& db, const CensusSnapshot& snapshot);

// The stored snapshot; nullopt when none was ever taken.
std::optional<CensusSnapshot> fetch_census(Database& db);

}  // namespace tharsis
