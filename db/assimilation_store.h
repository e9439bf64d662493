// SQL for the assimilation record: one row per assimilated workunit, inserted in the
// same transaction that sets assimilate_state DONE. Its primary key makes a second
// assimilation of a workunit impossible, and tools/check counts on it.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "db/database.h"

namespace tharsis {

// Returns false if the workunit already has a record (nothing inserted).
bool record_assimilation(Database& db, int64_t wu_id, int64_t now, int64_t canonical_resultid,
                         int error_mask);

struct AssimilationRecord {
  int64_t wu_id = 0;
  int64_t time = 0;
  int64_t canonical_resultid = 0;
  int error_mask = 0;
};
// The same for many workunits (distinct) in multi-row INSERTs; returns how many were
// inserted (fewer than records.size() when some workunit already had its record).
int64_t record_assimilations(Database& db, const std::vector<AssimilationRecord>& records);

// Assimilation records per workunit (exactly one each, if the law holds): tools/check.
std::map<int64_t, int64_t> count_assimilations_by_workunit(Database& db);
// Results (rows, any state) of one workunit.
int64_t count_results_of_workunit(Database& db, int64_t wu_id);

}  // namespace tharsis
