// SQL for file bookkeeping: which workunits name which input files (workunit_input), so
// a file shared by several workunits is deleted only when no live workunit needs it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "db/database.h"

namespace tharsis {

void record_workunit_inputs(Database& db, int64_t wu_id, const std::vector<std::string>& file_names);

// Of `file_names`, those named by a workunit other than `except_wu_id` whose
// file_delete_state is still INIT (it may still be sent or run).
std::set<std::string> live_file_references(Database& db, const std::vector<std::string>& file_names,
                                           int64_t except_wu_id);

}  // namespace tharsis
