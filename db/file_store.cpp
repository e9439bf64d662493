// Implementation of db/file_store.h.
#include "db/file_store.h"

#include "db/id_list.h"
#include "db/sql.h"
#include "db/states.h"

namespace tharsis {

void record_workunit_inputs(Database& db, int64_t wu_id, const std::vector<std::string>& file_names) {
  for (const auto& name : file_names) {
    exec(db, "INSERT IGNORE INTO workunit_input (workunitid, file_name) VALUES (?, ?)", wu_id, name);
  }
}

std::map<std::string, std::set<int64_t>> live_file_users(Database& db,
                                                         const std::vector<std::string>& file_names) {
  std::map<std::string, std::set<int64_t>> users;
  if (file_names.empty()) return users;
  const std::set<std::string> distinct(file_names.begin(), file_names.end());
  // Per name, the newest two live users, walked newest first on workunit_input_file
  // (file_name, workunitid): a file shared by thousands of live workunits, or named by
  // millions that are done, costs a read or two, not one per workunit that ever named it.
  const std::string live_user =
      "(SELECT i.workunitid FROM workunit_input i FORCE INDEX (workunit_input_file) "
      "STRAIGHT_JOIN workunit w ON w.id = i.workunitid WHERE i.file_name = wanted.wanted_name "
      "AND w.file_delete_state = ? ORDER BY i.workunitid DESC LIMIT ";
  auto rows = query(db,
                    "SELECT wanted.wanted_name, " + live_user + "1), " + live_user +
                        "1, 1), EXISTS (SELECT 1 FROM job_file jf FORCE INDEX (job_file_name) "
                        "WHERE jf.name = wanted.wanted_name) FROM " +
                        kNameListTable,
                    FileDeleteState::Init, FileDeleteState::Init,
                    name_list_json(std::vector<std::string>(distinct.begin(), distinct.end())));
  while (rows->next()) {
    std::set<int64_t> ids;
    for (int column : {2, 3}) {
      if (!rows->isNull(column)) ids.insert(rows->getInt64(column));
    }
    if (rows->getBoolean(4)) ids.insert(0);
    if (!ids.empty()) users[rows->getString(1)] = std::move(ids);
  }
  return users;
}

std::vector<ResultRow> fetch_unmarked_over_results(Database& db, const std::vector<int64_t>& wu_ids) {
  std::vector<ResultRow> results;
  if (wu_ids.empty()) return results;
  auto rows =
      query(db,
            "SELECT r.id, r.workunitid, r.server_state, r.outcome, r.file_delete_state, r.xml_doc_in FROM " +
                kIdListTable +
                " STRAIGHT_JOIN result r FORCE INDEX (res_wuid) ON r.workunitid = wanted.wanted_id "
                "WHERE r.file_delete_state = ? AND r.server_state = ?",
            id_list_json(wu_ids), FileDeleteState::Init, ServerState::Over);
  while (rows->next()) {
    ResultRow r;
    r.id = rows->getInt64("id");
    r.workunitid = rows->getInt64("workunitid");
    r.server_state = static_cast<ServerState>(rows->getInt("server_state"));
    r.outcome = static_cast<Outcome>(rows->getInt("outcome"));
    r.file_delete_state = static_cast<FileDeleteState>(rows->getInt("file_delete_state"));
    r.xml_doc_in = rows->getString("xml_doc_in");
    results.push_back(std::move(r));
  }
  return results;
}

int64_t mark_files_deleted(Database& db, FileOwner owner, const std::vector<int64_t>& ids) {
  if (ids.empty()) return 0;
  const std::string table = owner == FileOwner::Workunit ? "workunit" : "result";
  exec(db,
       "DELETE f FROM " + kIdListTable +
           " STRAIGHT_JOIN file_delete_retry f ON f.owner = ? AND f.id = wanted.wanted_id",
       id_list_json(ids), static_cast<int>(owner));
  return exec(db,
              "UPDATE " + kIdListTable + " STRAIGHT_JOIN " + table + " FORCE INDEX (PRIMARY) ON " + table +
                  ".id = wanted.wanted_id SET " + table + ".file_delete_state = ? WHERE " + table +
                  ".file_delete_state = ?",
              id_list_json(ids), FileDeleteState::Done, FileDeleteState::Ready);
}

namespace {

// At most `max` bytes of `text`, never ending inside a multi-byte character.
std::string ascii_prefix(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  std::string out = text.substr(0, max);
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80)) out.pop_back();
  return out;
}

}  // namespace

std::map<int64_t, int> file_delete_failures(Database& db, FileOwner owner, const std::vector<int64_t>& ids) {
  std::map<int64_t, int> failures;
  if (ids.empty()) return failures;
  auto rows = query(db,
                    "SELECT f.id, f.failures FROM " + kIdListTable +
                        " STRAIGHT_JOIN file_delete_retry f ON f.owner = ? AND f.id = wanted.wanted_id",
                    id_list_json(ids), static_cast<int>(owner));
  while (rows->next()) failures[rows->getInt64(1)] = rows->getInt(2);
  return failures;
}

void record_file_delete_failure(Database& db, FileOwner owner, const FileDeleteFailure& failure, int failures,
                                int64_t next_time) {
  exec(db,
       "INSERT INTO file_delete_retry (owner, id, failures, next_time, last_error) VALUES (?, ?, ?, ?, ?) "
       "ON DUPLICATE KEY UPDATE failures = VALUES(failures), next_time = VALUES(next_time), "
       "last_error = VALUES(last_error)",
       static_cast<int>(owner), failure.id, failures, next_time, ascii_prefix(failure.error, 254));
}

int64_t count_file_delete_retries(Database& db) {
  return query_int(db, "SELECT COUNT(*) FROM file_delete_retry");
}

bool input_used_by_other_live_workunit(Database& db, const std::string& file_name, int64_t except_wu) {
  return query_int(db,
                   "SELECT COUNT(*) FROM workunit_input i JOIN workunit w ON w.id = i.workunitid "
                   "WHERE i.file_name = ? AND i.workunitid <> ? AND w.file_delete_state <> ?",
                   file_name, except_wu, FileDeleteState::Done) > 0;
}

}  // namespace tharsis
