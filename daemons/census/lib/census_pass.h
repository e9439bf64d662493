// The census daemon's shell: when a snapshot is due (the first pass always; then every
// census_interval_after seconds), count results by state and the exact queue backlogs
// (db/census_store.h: count_census) and replace the stored snapshot in one transaction.
// The status pages show that snapshot and its time instead of counting on each view.
// Counting only reads (consistent reads, no locks), so it never blocks the scheduler or
// the other daemons; nothing is written per result anywhere.
#pragma once

#include <cstdint>

#include "db/census_store.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class CensusPass final : public DaemonWork {
 public:
  explicit CensusPass(int64_t interval_seconds) : interval_(interval_seconds) {}
  // Takes a snapshot and returns 1 when one is due, else returns 0 (idle).
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
  // Takes and stores one snapshot at `now` now, whatever is due; returns what it stored.
  CensusSnapshot take_snapshot(Database& db, int64_t now);
  int64_t next_due() const { return next_due_; }

 private:
  int64_t interval_;
  int64_t next_due_ = 0;  // 0: no snapshot taken by this process yet
};

}  // namespace tharsis
