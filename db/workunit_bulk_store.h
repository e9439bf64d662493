// Set-based workunit creation for batches of any size (remote submit_batch, create_work
// --bulk): workunits go in 256 rows per prepared multi-row INSERT, their input records as
// JSON arrays bound to one parameter of an INSERT .. SELECT FROM JSON_TABLE (a few MB per
// statement): never a statement per job. Runs inside the caller's transaction.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "db/database.h"
#include "db/rows.h"

namespace tharsis {

// Inserts the workunits (ids assigned by the database; `id` is ignored).
void insert_workunits_bulk(Database& db, const std::vector<WorkunitRow>& workunits);

// Records (workunit name, input file name) pairs in workunit_input, the workunits found
// by name (they must exist).
void record_workunit_inputs_bulk(Database& db,
                                 const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace tharsis
