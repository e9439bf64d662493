// SQL for what a read replica says of its own replication (SHOW SLAVE STATUS): whether
// it is applying the primary's changes and how far behind it is. The status pages read
// from a replica (<replica_db_host>) and must say when its figures are old.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/database.h"

namespace tharsis {

struct ReplicationState {
  bool io_running = false;                // receiving the primary's binlog
  bool sql_running = false;               // applying it
  std::optional<int64_t> seconds_behind;  // Seconds_Behind_Master; none while stopped
  std::string last_error;                 // Last_IO_Error or Last_SQL_Error, if any
};

// The connection's server as a replica. nullopt: it is not a replica (no row), or the
// account may not see replication state (MariaDB's REPLICA MONITOR privilege, which
// make_project grants the pages' read-only account). Other errors throw DbError.
std::optional<ReplicationState> read_replication_state(Database& db);

}  // namespace tharsis
