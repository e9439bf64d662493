// The live cluster jobs among the assimilator's batch (docs/reclustering.md), read and
// locked for the whole batch in one statement with its workunits (LockedWorkunits::
// also_lock), so that a workunit that is no clustered job — the common case — costs no
// statement of its own in the settle step.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "db/locked_workunits.h"
#include "db/rows.h"

namespace tharsis {

class LiveClusterJobs final : public BatchRows {
 public:
  void lock(Database& db, const std::vector<int64_t>& wu_ids) override;
  void clear() override { jobs_.clear(); }
  // The workunit's cluster job if it is LIVE, locked by the open transaction; nullopt if
  // it has none or it is settled. From the batch's read when lock() covered the workunit
  // (handed out once per lock()), else read and locked here.
  std::optional<ClusterJobRow> load(Database& db, int64_t wu_id);

 private:
  std::map<int64_t, std::optional<ClusterJobRow>> jobs_;  // every workunit lock() covered
};

}  // namespace tharsis
