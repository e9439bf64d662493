// Implementation of daemons/census/lib/census_pass.h.
#include "daemons/census/lib/census_pass.h"

#include <chrono>

#include "daemons/census/census_rules.h"
#include "lib/log.h"

namespace tharsis {

CensusSnapshot CensusPass::take_snapshot(Database& db, int64_t now) {
  const auto start = std::chrono::steady_clock::now();
  CensusSnapshot snapshot = count_census(db, now);
  snapshot.duration_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  snapshot.interval_seconds = census_interval_after(interval_, snapshot.duration_seconds);
  store_census(db, snapshot);
  if (snapshot.interval_seconds > interval_) {
    log_warning("counting took ", snapshot.duration_seconds, " s: next snapshot in ",
                snapshot.interval_seconds, " s instead of ", interval_, " s");
  }
  next_due_ = now + snapshot.interval_seconds;
  return snapshot;
}

int CensusPass::do_pass(Database& db, const DaemonContext&, int64_t now) {
  if (next_due_ != 0 && now < next_due_) return 0;
  const CensusSnapshot snapshot = take_snapshot(db, now);
  int64_t results = 0;
  for (const auto& [key, count] : snapshot.results) results += count;
  log_debug("snapshot: ", results, " results counted in ", snapshot.duration_seconds, " s");
  return 1;
}

}  // namespace tharsis
