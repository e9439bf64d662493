// Implementation of db/replication_state.h.
#include "db/replication_state.h"

#include "db/mariadb_errors.h"
#include "db/sql.h"

namespace tharsis {

std::optional<ReplicationState> read_replication_state(Database& db) {
  std::unique_ptr<sql::ResultSet> rows;
  try {
    rows = query(db, "SHOW SLAVE STATUS");
  } catch (const DbError& e) {
    if (e.code() == mariadb_error::kSpecificAccessDenied) return std::nullopt;
    throw;
  }
  if (!rows->next()) return std::nullopt;
  ReplicationState state;
  state.io_running = std::string(rows->getString("Slave_IO_Running")) == "Yes";
  state.sql_running = std::string(rows->getString("Slave_SQL_Running")) == "Yes";
  if (!rows->isNull("Seconds_Behind_Master")) state.seconds_behind = rows->getInt64("Seconds_Behind_Master");
  state.last_error = rows->getString("Last_SQL_Error");
  if (state.last_error.empty()) state.last_error = rows->getString("Last_IO_Error");
  return state;
}

}  // namespace tharsis
