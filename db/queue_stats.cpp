// Implementation of db/queue_stats.h.
#include "db/queue_stats.h"

#include "db/sql.h"
#include "db/states.h"

namespace tharsis {
namespace {

// One queue: the rows of `table` WHERE `condition`, which compares an indexed column with
// one bound value; fixed text only, never input.
struct QueueQuery {
  const char* table;
  const char* condition;
  int64_t value;
};

int64_t count_items(Database& db, const QueueQuery& q, int64_t cap) {
  const std::string rows = std::string("FROM ") + q.table + " WHERE " + q.condition;
  if (cap <= 0) return query_int(db, "SELECT COUNT(*) " + rows, q.value);
  // The derived table stops reading the index after `cap` entries.
  return query_int(db, "SELECT COUNT(*) FROM (SELECT 1 " + rows + " LIMIT ?) q", q.value, cap);
}

// create_time of the queue's lowest id: MIN(id) comes from the condition's index alone,
// where MIN(create_time) would look up every queued row.
int64_t first_created(Database& db, const QueueQuery& q) {
  return query_int(db,
                   std::string("SELECT create_time FROM ") + q.table + " WHERE id = (SELECT MIN(id) FROM " +
                       q.table + " WHERE " + q.condition + ")",
                   q.value);
}

QueueBacklog backlog(Database& db, const std::string& name, const std::vector<QueueQuery>& parts, int64_t now,
                     int64_t cap) {
  QueueBacklog b{name, 0, 0, false};
  for (const auto& part : parts) {
    const int64_t count = count_items(db, part, cap);
    if (count == 0) continue;
    b.count += count;
    b.capped = b.capped || (cap > 0 && count >= cap);
    b.oldest_age = std::max(b.oldest_age, std::max<int64_t>(0, now - first_created(db, part)));
  }
  return b;
}

}  // namespace

std::vector<QueueBacklog> queue_backlogs(Database& db, int64_t now, int64_t cap) {
  std::vector<QueueBacklog> out;
  {
    const QueueQuery due{"workunit", "transition_time <= ?", now};
    QueueBacklog b{"transition", count_items(db, due, cap), 0, false};
    b.capped = cap > 0 && b.count >= cap;
    if (b.count > 0) {
      b.oldest_age = std::max<int64_t>(
          0,
          now - query_int(db, "SELECT MIN(transition_time) FROM workunit WHERE transition_time <= ?", now));
    }
    out.push_back(b);
  }
  out.push_back(backlog(db, "validation", {{"workunit", "need_validate = ?", 1}}, now, cap));
  out.push_back(backlog(db, "assimilation",
                        {{"workunit", "assimilate_state = ?", code(AssimilateState::Ready)}}, now, cap));
  out.push_back(backlog(db, "file_deletion",
                        {{"workunit", "file_delete_state = ?", code(FileDeleteState::Ready)},
                         {"result", "file_delete_state = ?", code(FileDeleteState::Ready)}},
                        now, cap));
  return out;
}

std::map<std::pair<int, int>, int64_t> results_by_state(Database& db) {
  std::map<std::pair<int, int>, int64_t> out;
  auto rows = query(db, "SELECT server_state, outcome, COUNT(*) FROM result GROUP BY server_state, outcome");
  while (rows->next()) out[{rows->getInt(1), rows->getInt(2)}] = rows->getInt64(3);
  return out;
}

WorkunitProgress workunit_progress(Database& db) {
  WorkunitProgress p;
  auto rows = query(db,
                    "SELECT COUNT(*), COALESCE(SUM(canonical_resultid <> 0 AND error_mask = 0), 0), "
                    "COALESCE(SUM(error_mask <> 0), 0), COALESCE(SUM(assimilate_state = ?), 0), "
                    "COALESCE(SUM(file_delete_state = ?), 0) FROM workunit",
                    AssimilateState::Done, FileDeleteState::Done);
  if (rows->next()) {
    p.total = rows->getInt64(1);
    p.with_canonical = rows->getInt64(2);
    p.errored = rows->getInt64(3);
    p.assimilated = rows->getInt64(4);
    p.files_deleted = rows->getInt64(5);
  }
  p.results_not_over =
      query_int(db, "SELECT COUNT(*) FROM result WHERE server_state <> ?", ServerState::Over);
  p.result_files_pending =
      query_int(db, "SELECT COUNT(*) FROM result WHERE file_delete_state = ?", FileDeleteState::Ready);
  return p;
}

}  // namespace tharsis
