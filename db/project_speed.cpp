// Implementation of db/project_speed.h.
#include "db/project_speed.h"

#include "db/sql.h"

namespace tharsis {

double recent_hosts_flops(Database& db, int64_t since) {
  auto rows = query(
      db, "SELECT COALESCE(SUM(p_fpops * GREATEST(p_ncpus, 1)), 0) FROM host WHERE rpc_time >= ?", since);
  return rows->next() ? rows->getDouble(1) : 0;
}

}  // namespace tharsis
