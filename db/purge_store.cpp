// Implementation of db/purge_store.h.
#include "db/purge_store.h"

#include "db/result_store.h"
#include "db/sql.h"
#include "db/workunit_store.h"

namespace tharsis {

std::vector<PurgeCandidate> fetch_purge_candidates(Database& db, int64_t cutoff, int limit) {
  auto rows = query(db,
                    "SELECT w.id, a.time FROM workunit w JOIN assimilation a ON a.workunitid = w.id "
                    "WHERE w.file_delete_state = ? AND a.time <= ? AND NOT EXISTS (SELECT 1 FROM result r "
                    "WHERE r.workunitid = w.id AND (r.server_state <> ? OR r.file_delete_state = ?)) "
                    "ORDER BY w.id LIMIT ?",
                    FileDeleteState::Done, cutoff, ServerState::Over, FileDeleteState::Ready, limit);
  std::vector<std::pair<int64_t, int64_t>> ids;
  while (rows->next()) ids.emplace_back(rows->getInt64(1), rows->getInt64(2));
  std::vector<PurgeCandidate> out;
  for (auto [id, time] : ids) {
    auto wu = fetch_workunit(db, id);
    if (!wu) continue;
    out.push_back(PurgeCandidate{*wu, fetch_results_of_workunit(db, id), time});
  }
  return out;
}

int64_t delete_purged(Database& db, const std::vector<int64_t>& wu_ids) {
  int64_t deleted = 0;
  for (int64_t id : wu_ids) {
    exec(db, "DELETE s FROM result r JOIN result_stderr s ON s.resultid = r.id WHERE r.workunitid = ?", id);
    exec(db, "DELETE FROM result WHERE workunitid = ?", id);
    exec(db, "DELETE FROM workunit_input WHERE workunitid = ?", id);
    exec(db, "DELETE FROM assimilation WHERE workunitid = ?", id);
    deleted +=
        exec(db, "DELETE FROM workunit WHERE id = ? AND file_delete_state = ?", id, FileDeleteState::Done);
  }
  return deleted;
}

}  // namespace tharsis
