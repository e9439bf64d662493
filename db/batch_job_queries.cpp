// Implementation of db/batch_job_queries.h.
#include "db/batch_job_queries.h"

#include "db/id_list.h"
#include "db/sql.h"
#include "db/states.h"

namespace tharsis {
namespace {

std::vector<BatchJob> read_jobs(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<BatchJob> out;
  while (rows->next()) {
    out.push_back(BatchJob{rows->getInt64(1), rows->getString(2), rows->getInt64(3), rows->getInt64(4),
                           rows->getInt(5)});
  }
  return out;
}

// Marks the listed workunits cancelled (error bit, due for the transitioner) unless
// assimilated or cancelled already; `join` picks them from the id list (by id or by batch).
int64_t cancel_workunits_joined(Database& db, const std::string& join, const std::vector<int64_t>& ids,
                                int64_t now) {
  return exec(db,
              "UPDATE " + kIdListTable + " STRAIGHT_JOIN workunit w " + join +
                  " SET w.error_mask = w.error_mask | ?, w.transition_time = LEAST(w.transition_time, ?) "
                  "WHERE w.assimilate_state <> ? AND (w.error_mask & ?) = 0",
              id_list_json(ids), kWuErrorCancelled, now, AssimilateState::Done, kWuErrorCancelled);
}

}  // namespace

std::vector<BatchJob> fetch_batch_jobs(Database& db, int64_t batch_id) {
  return read_jobs(
      query(db,
            "SELECT id, name, batch, canonical_resultid, error_mask FROM workunit FORCE INDEX (wu_batch) "
            "WHERE batch = ? ORDER BY id",
            batch_id));
}

std::unordered_set<int64_t> fetch_batch_jobs_in_progress(Database& db, int64_t batch_id) {
  auto rows =
      query(db,
            "SELECT DISTINCT r.workunitid FROM workunit w FORCE INDEX (wu_batch) STRAIGHT_JOIN result r "
            "ON r.workunitid = w.id WHERE w.batch = ? AND r.server_state = ?",
            batch_id, ServerState::InProgress);
  std::unordered_set<int64_t> out;
  while (rows->next()) out.insert(rows->getInt64(1));
  return out;
}

std::vector<BatchJob> fetch_jobs_by_name(Database& db, const std::vector<std::string>& names) {
  return read_jobs(query(db,
                         "SELECT w.id, w.name, w.batch, w.canonical_resultid, w.error_mask FROM " +
                             kNameListTable +
                             " STRAIGHT_JOIN workunit w ON w.name = wanted.wanted_name ORDER BY w.id",
                         name_list_json(names)));
}

int64_t cancel_batch_jobs(Database& db, int64_t batch_id, int64_t now) {
  return exec(db,
              "UPDATE workunit SET error_mask = error_mask | ?, "
              "transition_time = LEAST(transition_time, ?) "
              "WHERE batch = ? AND assimilate_state <> ? AND (error_mask & ?) = 0",
              kWuErrorCancelled, now, batch_id, AssimilateState::Done, kWuErrorCancelled);
}

int64_t cancel_jobs_of_batches(Database& db, const std::vector<int64_t>& batch_ids, int64_t now) {
  if (batch_ids.empty()) return 0;
  return cancel_workunits_joined(db, "FORCE INDEX (wu_batch) ON w.batch = wanted.wanted_id", batch_ids, now);
}

std::vector<std::string> fetch_job_names_of_batches(Database& db, const std::vector<int64_t>& batch_ids) {
  std::vector<std::string> names;
  if (batch_ids.empty()) return names;
  auto rows = query(db,
                    "SELECT w.name FROM " + kIdListTable +
                        " STRAIGHT_JOIN workunit w FORCE INDEX (wu_batch) ON w.batch = wanted.wanted_id",
                    id_list_json(batch_ids));
  while (rows->next()) names.push_back(rows->getString(1));
  return names;
}

int64_t cancel_jobs(Database& db, const std::vector<int64_t>& ids, int64_t now) {
  return cancel_workunits_joined(db, "ON w.id = wanted.wanted_id", ids, now);
}

}  // namespace tharsis
