// The validator's shell: for each need_validate workunit of its shard, inside a
// transaction shared by up to --units_per_commit workunits (batch_commit.h; a workunit
// whose rows changed meanwhile is skipped alone), lock the workunit and its results, runs plan_validation
// with the app's file comparator (app.comparator: bitwise, numeric or trivial) behind the report check
// (report_checking_comparator.h: an output whose size or md5 differs from what its result
// reported makes that result VALIDATE_ERROR), and writes the plan guarded on the loaded
// state, with the credit it grants.
#pragma once

#include <map>
#include <memory>

#include "daemons/validator/comparator.h"
#include "db/locked_workunits.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class ValidatorPass final : public DaemonWork {
 public:
  explicit ValidatorPass(const ProjectConfig& config) : config_(config) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
  // One workunit in its own transaction; returns whether anything was written.
  bool validate_one(Database& db, int64_t wu_id, int64_t now);

 private:
  bool validate_in_transaction(Database& d, int64_t wu_id, int64_t now);
  ResultComparator& comparator_for(Database& db, int64_t appid);
  const ProjectConfig& config_;
  std::map<int64_t, std::unique_ptr<ResultComparator>> comparators_;
  LockedWorkunits locked_;  // the open batch's rows
};

}  // namespace tharsis
