// The validator's shell: for each need_validate workunit of its shard, one transaction
// that locks the workunit and its results, runs plan_validation with the app's file
// comparator (app.comparator: bitwise, numeric or trivial), and writes the plan guarded
// on the loaded state, with the credit it grants.
#pragma once

#include <map>
#include <memory>

#include "daemons/validator/comparator.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class ValidatorPass final : public DaemonWork {
 public:
  explicit ValidatorPass(const ProjectConfig& config) : config_(config) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
  bool validate_one(Database& db, int64_t wu_id, int64_t now);

 private:
  ResultComparator& comparator_for(Database& db, int64_t appid);
  const ProjectConfig& config_;
  std::map<int64_t, std::unique_ptr<ResultComparator>> comparators_;
};

}  // namespace tharsis
