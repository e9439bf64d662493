// Implementation of db/queue_stats.h.
#include "db/queue_stats.h"

namespace tharsis {
namespace {

QueueBacklog backlog(Database& db, const std::string& name, const std::string& sql_text, int64_t now) {
  auto rows = db.query(sql_text);
  QueueBacklog b{name, 0, 0};
  if (rows->next()) {
    b.count = rows->getInt64(1);
    if (b.count > 0 && !rows->isNull(2)) b.oldest_age = std::max<int64_t>(0, now - rows->getInt64(2));
  }
  return b;
}

}  // namespace

std::vector<QueueBacklog> queue_backlogs(Database& db, int64_t now) {
  std::vector<QueueBacklog> out;
  {
    auto rows =
        db.query("SELECT COUNT(*), MIN(transition_time) FROM workunit WHERE transition_time <= ?", now);
    QueueBacklog b{"transition", 0, 0};
    if (rows->next()) {
      b.count = rows->getInt64(1);
      if (b.count > 0) b.oldest_age = std::max<int64_t>(0, now - rows->getInt64(2));
    }
    out.push_back(b);
  }
  out.push_back(backlog(db, "validation",
                        "SELECT COUNT(*), MIN(create_time) FROM workunit WHERE need_validate = 1", now));
  out.push_back(backlog(db, "assimilation",
                        "SELECT COUNT(*), MIN(create_time) FROM workunit WHERE assimilate_state = 1", now));
  auto wu_files = backlog(db, "file_deletion",
                          "SELECT COUNT(*), MIN(create_time) FROM workunit WHERE file_delete_state = 1", now);
  auto result_files = backlog(
      db, "file_deletion", "SELECT COUNT(*), MIN(create_time) FROM result WHERE file_delete_state = 1", now);
  wu_files.count += result_files.count;
  wu_files.oldest_age = std::max(wu_files.oldest_age, result_files.oldest_age);
  out.push_back(wu_files);
  return out;
}

std::map<std::pair<int, int>, int64_t> results_by_state(Database& db) {
  std::map<std::pair<int, int>, int64_t> out;
  auto rows = db.query("SELECT server_state, outcome, COUNT(*) FROM result GROUP BY server_state, outcome");
  while (rows->next()) out[{rows->getInt(1), rows->getInt(2)}] = rows->getInt64(3);
  return out;
}

WorkunitProgress workunit_progress(Database& db) {
  WorkunitProgress p;
  auto rows = db.query(
      "SELECT COUNT(*), COALESCE(SUM(canonical_resultid <> 0 AND error_mask = 0), 0), "
      "COALESCE(SUM(error_mask <> 0), 0), COALESCE(SUM(assimilate_state = 2), 0), "
      "COALESCE(SUM(file_delete_state = 2), 0) FROM workunit");
  if (rows->next()) {
    p.total = rows->getInt64(1);
    p.with_canonical = rows->getInt64(2);
    p.errored = rows->getInt64(3);
    p.assimilated = rows->getInt64(4);
    p.files_deleted = rows->getInt64(5);
  }
  p.results_not_over = db.query_int("SELECT COUNT(*) FROM result WHERE server_state <> 5");
  return p;
}

}  // namespace tharsis
