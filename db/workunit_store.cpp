// Implementation of db/workunit_store.h.
#include "db/workunit_store.h"

#include <algorithm>
#include <cmath>

#include "db/file_store.h"
#include "db/id_list.h"
#include "db/sql.h"

namespace tharsis {
namespace {

const std::string kColumns =
    "id, create_time, appid, name, xml_doc, batch, rsc_fpops_est, rsc_fpops_bound, "
    "rsc_memory_bound, rsc_disk_bound, delay_bound, min_quorum, target_nresults, "
    "max_error_results, max_total_results, max_success_results, priority, canonical_resultid, "
    "transition_time, file_delete_state, assimilate_state, need_validate, error_mask, "
    "canonical_credit, result_template_file, graph_id";

// A row of a SELECT of kColumns, read by position in that order (a read by name
// costs an upper-cased copy and a map search per column).
WorkunitRow read_row(sql::ResultSet& r) {
  uint32_t column = 0;
  WorkunitRow wu;
  wu.id = r.getInt64(++column);
  wu.create_time = r.getInt64(++column);
  wu.appid = r.getInt64(++column);
  wu.name = r.getString(++column);
  wu.xml_doc = r.getString(++column);
  wu.batch = r.getInt(++column);
  wu.rsc_fpops_est = r.getDouble(++column);
  wu.rsc_fpops_bound = r.getDouble(++column);
  wu.rsc_memory_bound = r.getDouble(++column);
  wu.rsc_disk_bound = r.getDouble(++column);
  wu.delay_bound = r.getInt(++column);
  wu.min_quorum = r.getInt(++column);
  wu.target_nresults = r.getInt(++column);
  wu.max_error_results = r.getInt(++column);
  wu.max_total_results = r.getInt(++column);
  wu.max_success_results = r.getInt(++column);
  wu.priority = r.getInt(++column);
  wu.canonical_resultid = r.getInt64(++column);
  wu.transition_time = r.getInt64(++column);
  wu.file_delete_state = static_cast<FileDeleteState>(r.getInt(++column));
  wu.assimilate_state = static_cast<AssimilateState>(r.getInt(++column));
  wu.need_validate = r.getInt(++column) != 0;
  wu.error_mask = r.getInt(++column);
  wu.canonical_credit = r.getDouble(++column);
  wu.result_template_file = r.getString(++column);
  wu.graph_id = r.getInt64(++column);
  return wu;
}

std::vector<WorkunitRow> read_all(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<WorkunitRow> out;
  while (rows->next()) out.push_back(read_row(*rows));
  return out;
}

// The first column of every row (the queries above read ids from an index alone).
std::vector<int64_t> read_ids(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<int64_t> out;
  while (rows->next()) out.push_back(rows->getInt64(1));
  return out;
}

}  // namespace

int64_t insert_workunit(Database& db, const WorkunitRow& wu) {
  exec(db,
       "INSERT INTO workunit (create_time, appid, name, xml_doc, batch, rsc_fpops_est, "
       "rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound, delay_bound, min_quorum, "
       "target_nresults, max_error_results, max_total_results, max_success_results, priority, "
       "canonical_resultid, transition_time, file_delete_state, assimilate_state, need_validate, "
       "error_mask, canonical_credit, result_template_file, graph_id) "
       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
       wu.create_time, wu.appid, wu.name, wu.xml_doc, wu.batch, wu.rsc_fpops_est, wu.rsc_fpops_bound,
       wu.rsc_memory_bound, wu.rsc_disk_bound, wu.delay_bound, wu.min_quorum, wu.target_nresults,
       wu.max_error_results, wu.max_total_results, wu.max_success_results, wu.priority, wu.canonical_resultid,
       wu.transition_time, wu.file_delete_state, wu.assimilate_state, wu.need_validate, wu.error_mask,
       wu.canonical_credit, wu.result_template_file, wu.graph_id);
  return last_insert_id(db);
}

std::optional<WorkunitRow> fetch_workunit(Database& db, int64_t id, bool for_update) {
  auto rows =
      query(db, "SELECT " + kColumns + " FROM workunit WHERE id = ?" + (for_update ? " FOR UPDATE" : ""), id);
  if (!rows->next()) return std::nullopt;
  return read_row(*rows);
}

std::vector<WorkunitRow> fetch_workunits(Database& db, const std::vector<int64_t>& ids, bool for_update) {
  // Sorted here, not by ORDER BY: a server-side sort of rows with MEDIUMTEXT columns cost
  // three times the read itself.
  auto rows =
      read_all(query(db,
                     "SELECT " + kColumns + " FROM " + kIdListTable +
                         " STRAIGHT_JOIN workunit FORCE INDEX (PRIMARY) ON workunit.id = wanted.wanted_id" +
                         (for_update ? " FOR UPDATE" : ""),
                     id_list_json(ids)));
  std::sort(rows.begin(), rows.end(), [](const WorkunitRow& a, const WorkunitRow& b) { return a.id < b.id; });
  return rows;
}

std::optional<WorkunitRow> fetch_workunit_by_name(Database& db, const std::string& name) {
  auto rows = query(db, "SELECT " + kColumns + " FROM workunit WHERE name = ?", name);
  if (!rows->next()) return std::nullopt;
  return read_row(*rows);
}

std::unordered_map<std::string, int64_t> fetch_workunit_ids_of_graph(Database& db, int64_t graph_id) {
  auto rows = query(db, "SELECT id, name FROM workunit WHERE graph_id = ?", graph_id);
  std::unordered_map<std::string, int64_t> out;
  while (rows->next()) out.emplace(rows->getString(2), rows->getInt64(1));
  return out;
}

std::vector<int64_t> fetch_due_workunit_ids(Database& db, int64_t now, Shard shard, int limit) {
  return read_ids(query(db,
                        "SELECT id FROM workunit WHERE transition_time <= ? AND id % ? = ? "
                        "ORDER BY transition_time LIMIT ?",
                        now, shard.n, shard.id, limit));
}

std::vector<int64_t> fetch_need_validate_ids(Database& db, Shard shard, int limit, int64_t after_id,
                                             int64_t upto_id) {
  return read_ids(
      query(db,
            "SELECT id FROM workunit FORCE INDEX (wu_validate) WHERE need_validate = 1 AND id > ? "
            "AND id <= ? AND id % ? = ? ORDER BY id LIMIT ?",
            after_id, upto_id, shard.n, shard.id, limit));
}

std::vector<int64_t> fetch_assimilate_ready_ids(Database& db, Shard shard, int limit, int64_t after_id,
                                                int64_t upto_id) {
  return read_ids(query(db,
                        "SELECT id FROM workunit FORCE INDEX (wu_assimilate) WHERE assimilate_state = ? "
                        "AND id > ? AND id <= ? AND id % ? = ? ORDER BY id LIMIT ?",
                        AssimilateState::Ready, after_id, upto_id, shard.n, shard.id, limit));
}

std::vector<WorkunitRow> fetch_file_delete_ready_workunits(Database& db, Shard shard, int limit, int64_t now,
                                                           int64_t after_id, int64_t upto_id) {
  return read_all(
      query(db,
            "SELECT " + kColumns +
                " FROM workunit FORCE INDEX (wu_file_delete) WHERE file_delete_state = ? AND id > ? "
                "AND id <= ? AND id % ? = ? AND NOT EXISTS ("
                "SELECT 1 FROM file_delete_retry f WHERE f.owner = ? AND f.id = workunit.id "
                "AND f.next_time > ?) ORDER BY id LIMIT ?",
            FileDeleteState::Ready, after_id, upto_id, shard.n, shard.id, FileOwner::Workunit, now, limit));
}

void update_workunit(Database& db, const WorkunitRow& wu) {
  exec(db,
       "UPDATE workunit SET canonical_resultid = ?, transition_time = ?, file_delete_state = ?, "
       "assimilate_state = ?, need_validate = ?, error_mask = ?, canonical_credit = ?, "
       "target_nresults = ?, priority = ? WHERE id = ?",
       wu.canonical_resultid, wu.transition_time, wu.file_delete_state, wu.assimilate_state, wu.need_validate,
       wu.error_mask, wu.canonical_credit, wu.target_nresults, wu.priority, wu.id);
}

bool update_workunit_guarded(Database& db, const WorkunitRow& before, const WorkunitRow& after) {
  return exec(db,
              "UPDATE workunit SET canonical_resultid = ?, transition_time = ?, "
              "file_delete_state = ?, assimilate_state = ?, need_validate = ?, error_mask = ?, "
              "canonical_credit = ?, target_nresults = ?, priority = ? "
              "WHERE id = ? AND canonical_resultid = ? AND file_delete_state = ? "
              "AND assimilate_state = ? AND error_mask = ?",
              after.canonical_resultid, after.transition_time, after.file_delete_state,
              after.assimilate_state, after.need_validate, after.error_mask, after.canonical_credit,
              after.target_nresults, after.priority, after.id, before.canonical_resultid,
              before.file_delete_state, before.assimilate_state, before.error_mask) > 0;
}

int64_t update_workunits_guarded(Database& db, const std::vector<WorkunitUpdate>& updates) {
  // One JSON row per update: id, the guard (state before), then the columns to write.
  std::string json = "[";
  for (const auto& u : updates) {
    const WorkunitRow& a = u.after;
    const WorkunitRow& b = u.before;
    if (!std::isfinite(a.canonical_credit)) continue;  // not a JSON number: left unmatched
    if (json.size() > 1) json += ',';
    json += "[" + std::to_string(a.id) + "," + std::to_string(b.canonical_resultid);
    for (int v :
         {static_cast<int>(b.file_delete_state), static_cast<int>(b.assimilate_state), b.error_mask}) {
      json += "," + std::to_string(v);
    }
    json += "," + std::to_string(a.canonical_resultid) + "," + std::to_string(a.transition_time);
    for (int v : {static_cast<int>(a.file_delete_state), static_cast<int>(a.assimilate_state),
                  a.need_validate ? 1 : 0, a.error_mask}) {
      json += "," + std::to_string(v);
    }
    json += "," + json_double(a.canonical_credit) + "," + std::to_string(a.target_nresults) + "," +
            std::to_string(a.priority) + "]";
  }
  if (json.size() == 1) return 0;
  return exec(
      db,
      "UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', "
      "old_canonical_resultid BIGINT PATH '$[1]', old_file_delete_state INT PATH '$[2]', "
      "old_assimilate_state INT PATH '$[3]', old_error_mask INT PATH '$[4]', "
      "canonical_resultid BIGINT PATH '$[5]', transition_time BIGINT PATH '$[6]', "
      "file_delete_state INT PATH '$[7]', assimilate_state INT PATH '$[8]', need_validate INT PATH '$[9]', "
      "error_mask INT PATH '$[10]', canonical_credit DOUBLE PATH '$[11]', target_nresults INT PATH '$[12]', "
      "priority INT PATH '$[13]')) u STRAIGHT_JOIN workunit w FORCE INDEX (PRIMARY) ON w.id = u.id "
      "SET w.canonical_resultid = u.canonical_resultid, w.transition_time = u.transition_time, "
      "w.file_delete_state = u.file_delete_state, w.assimilate_state = u.assimilate_state, "
      "w.need_validate = u.need_validate, w.error_mask = u.error_mask, "
      "w.canonical_credit = u.canonical_credit, w.target_nresults = u.target_nresults, "
      "w.priority = u.priority WHERE w.canonical_resultid = u.old_canonical_resultid "
      "AND w.file_delete_state = u.old_file_delete_state AND w.assimilate_state = u.old_assimilate_state "
      "AND w.error_mask = u.old_error_mask",
      json + "]");
}

bool release_held_workunit(Database& db, int64_t wu_id, const std::string& xml_doc, int64_t now) {
  return exec(db,
              "UPDATE workunit SET xml_doc = ?, transition_time = ? WHERE id = ? AND transition_time = ? "
              "AND error_mask = 0",
              xml_doc, now, wu_id, kTransitionNever) > 0;
}

bool mark_workunit_cancelled(Database& db, int64_t wu_id, int64_t now) {
  return exec(db,
              "UPDATE workunit SET error_mask = error_mask | ?, transition_time = LEAST(transition_time, ?) "
              "WHERE id = ? AND assimilate_state <> ?",
              kWuErrorCancelled, now, wu_id, AssimilateState::Done) > 0;
}

}  // namespace tharsis

namespace tharsis {
std::vector<WorkunitRow> fetch_workunits_after(Database& db, int64_t after_id, int limit) {
  return read_all(
      query(db, "SELECT " + kColumns + " FROM workunit WHERE id > ? ORDER BY id LIMIT ?", after_id, limit));
}
}  // namespace tharsis
