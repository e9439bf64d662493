// Implementation of db/send_store.h.
#include "db/send_store.h"

#include "db/states.h"

namespace tharsis {

std::vector<SendCandidateRow> fetch_send_candidates(Database& db, int limit) {
  // The operand's host preference comes from subqueries run for the rows returned only: as
  // a LEFT JOIN, the optimizer may join the whole unsent queue first (block nested loop +
  // filesort, a scan of every unsent result per RPC) instead of stopping at LIMIT.
  auto rows = db.query(
      "SELECT r.id, r.workunitid, r.appid, r.priority, w.rsc_fpops_est, w.rsc_memory_bound, w.rsc_disk_bound, "
      "w.delay_bound, "
      "COALESCE((SELECT o.preferred_host FROM operand o WHERE o.workunitid = r.workunitid LIMIT 1), 0), "
      "COALESCE((SELECT o.preferred_until FROM operand o WHERE o.workunitid = r.workunitid LIMIT 1), 0) "
      "FROM result r JOIN workunit w ON w.id = r.workunitid "
      "WHERE r.server_state = ? ORDER BY r.priority DESC, r.id LIMIT ?",
      ServerState::Unsent, limit);
  std::vector<SendCandidateRow> out;
  while (rows->next()) {
    SendCandidateRow c;
    c.result_id = rows->getInt64(1);
    c.workunit_id = rows->getInt64(2);
    c.appid = rows->getInt64(3);
    c.priority = rows->getInt(4);
    c.rsc_fpops_est = rows->getDouble(5);
    c.rsc_memory_bound = rows->getDouble(6);
    c.rsc_disk_bound = rows->getDouble(7);
    c.delay_bound = rows->getInt(8);
    c.preferred_host = rows->getInt64(9);
    c.preferred_until = rows->getInt64(10);
    out.push_back(c);
  }
  return out;
}

}  // namespace tharsis
