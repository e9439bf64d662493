// The validator's shell: need_validate workunits of its shard in transactions of up to
// --units_per_commit workunits (batch_commit.h, commit_workunit_sets): the batch's
// workunits and results locked in two statements, plan_validation run per workunit with
// the app's file comparator (app.comparator: bitwise, numeric or trivial) behind the
// report check (report_checking_comparator.h: an output whose size or md5 differs from
// what its result reported makes that result VALIDATE_ERROR), and the batch's writes made
// as a set, guarded on the loaded state, with the credit granted recorded as pending per
// host and user; a batch whose rows changed meanwhile is written again unit by unit, the
// stale workunit skipped alone. After its batches a pass adds the pending credit to the
// hosts' and users' totals (credit_fold.h): the batches never lock a host or user row.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "daemons/validator/comparator.h"
#include "db/locked_workunits.h"
#include "db/planned_writes.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class ValidatorPass final : public DaemonWork {
 public:
  explicit ValidatorPass(const ProjectConfig& config) : config_(config) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
  // One workunit in its own transaction; returns whether anything was written.
  bool validate_one(Database& db, int64_t wu_id, int64_t now);

 private:
  // Plans one workunit of the open batch into `writes`; false when it needs no validation.
  bool plan_in_transaction(Database& d, int64_t wu_id, int64_t now, PlannedWrites& writes);
  int validate_batch(Database& db, const std::vector<int64_t>& wu_ids, int64_t now, int per_commit,
                     const std::function<bool()>& stop);
  ResultComparator& comparator_for(Database& db, int64_t appid);
  const ProjectConfig& config_;
  std::map<int64_t, std::unique_ptr<ResultComparator>> comparators_;
  LockedWorkunits locked_;  // the open batch's rows, with their file lists
  int64_t cursor_ = 0;      // where the last read of the queue ended (lib/daemon/cursor_read.h)
};

}  // namespace tharsis
