// Results that take uploads, for tests that speak to the upload handler without a
// scheduler RPC: the upload handler accepts only outputs of existing results that still
// take output (sched/lib/upload_rules.h).
#pragma once

#include <string>

#include "db/database.h"
#include "tests/support/test_project.h"

namespace tharsis::testing {

// Creates workunit `job` of the project's app (one input, the project's output template,
// 1e9 flops) and its results, unsent (a transitioner pass).
void make_workunit(Database& db, const TestProject& project, const std::string& job);

// make_workunit, then marks the first result IN_PROGRESS as if sent. Returns that
// result's name; its outputs are "<name>_0", "<name>_1", ...
std::string make_result_in_progress(Database& db, const TestProject& project, const std::string& job);

}  // namespace tharsis::testing
