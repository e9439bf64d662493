// The rows the server has read for this session so far (the sum of its Handler_read_*
// counters): what tests that hold a query's cost flat as tables grow count, instead of
// timing it. Reading the counters reads rows too; callers subtract one reading's cost.
#pragma once

#include <cstdint>

#include "db/database.h"
#include "db/sql.h"

namespace tharsis::testing {

inline int64_t rows_read(Database& db) {
  return query_int(
      db,
      "SELECT SUM(VARIABLE_VALUE) FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME LIKE "
      "'HANDLER_READ%'");
}

}  // namespace tharsis::testing
