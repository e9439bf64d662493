// Implementation of db/file_store.h.
#include "db/file_store.h"

#include "db/id_list.h"
#include "db/sql.h"
#include "db/stale_row.h"
#include "db/states.h"

namespace tharsis {

namespace {

// The distinct names, sorted: every taker and deleter locks download_claim rows in one order.
std::string sorted_name_list(const std::vector<std::string>& names) {
  const std::set<std::string> distinct(names.begin(), names.end());
  return name_list_json(std::vector<std::string>(distinct.begin(), distinct.end()));
}

}  // namespace

void take_download_files(Database& db, const std::vector<std::string>& names) {
  if (names.empty()) return;
  const std::set<std::string> distinct(names.begin(), names.end());
  // A few MB of names per statement pair (a bulk submission's inputs), in name order.
  constexpr size_t kListBytes = 4u << 20;
  std::vector<std::string> piece;
  size_t bytes = 0;
  auto take = [&] {
    const std::string list = name_list_json(piece);
    exec(db,
         "INSERT INTO download_claim (name, deleting, takers) SELECT wanted.wanted_name, 0, 1 FROM " +
             kNameListTable + " ON DUPLICATE KEY UPDATE takers = takers + 1",
         list);
    // The row goes again at once; its lock (the delete-marked record's) stays until the commit.
    const int64_t removed = exec(db,
                                 "DELETE c FROM " + kNameListTable +
                                     " STRAIGHT_JOIN download_claim c ON c.name = wanted.wanted_name "
                                     "WHERE c.deleting = 0",
                                 list);
    if (removed < static_cast<int64_t>(piece.size())) {
      auto deleting = downloads_deleting(db, piece);
      if (!deleting.empty()) {
        throw StaleRow("input file " + deleting.front() +
                       " is being deleted by the file deleter; the workunit takes it at the next attempt");
      }
    }
    piece.clear();
    bytes = 0;
  };
  for (const auto& name : distinct) {
    piece.push_back(name);
    bytes += name.size() + 8;
    if (bytes >= kListBytes) take();
  }
  if (!piece.empty()) take();
}

std::map<std::string, int64_t> mark_downloads_deleting(Database& db,
                                                       const std::map<std::string, int64_t>& owners) {
  std::map<std::string, int64_t> marked;
  if (owners.empty()) return marked;
  std::string json = "[";
  for (const auto& [name, owner] : owners) {  // in name order
    json += json.size() > 1 ? ",[" : "[";
    json += json_string(name) + "," + std::to_string(owner) + "]";
  }
  json += "]";
  const std::string pairs =
      "JSON_TABLE(?, '$[*]' COLUMNS (wanted_name VARCHAR(254) PATH '$[0]', wanted_owner INT PATH '$[1]')) "
      "wanted";
  // A row there is another deleter's committed mark (a taker's row never outlives its
  // transaction): it keeps its owner.
  exec(db,
       "INSERT INTO download_claim (name, deleting, owner, takers) SELECT wanted.wanted_name, 1, "
       "wanted.wanted_owner, 0 FROM " +
           pairs + " ON DUPLICATE KEY UPDATE deleting = 1",
       json);
  auto rows = query(db,
                    "SELECT c.name, c.owner FROM " + pairs +
                        " STRAIGHT_JOIN download_claim c ON c.name = wanted.wanted_name",
                    json);
  while (rows->next()) marked[rows->getString(1)] = rows->getInt64(2);
  return marked;
}

void forget_downloads_deleting(Database& db, const std::vector<std::string>& names) {
  if (names.empty()) return;
  exec(db,
       "DELETE c FROM " + kNameListTable + " STRAIGHT_JOIN download_claim c ON c.name = wanted.wanted_name",
       sorted_name_list(names));
}

std::vector<std::string> downloads_deleting(Database& db, const std::vector<std::string>& names) {
  std::vector<std::string> deleting;
  if (names.empty()) return deleting;
  auto rows = query(db,
                    "SELECT c.name FROM " + kNameListTable +
                        " STRAIGHT_JOIN download_claim c ON c.name = wanted.wanted_name WHERE c.deleting = 1",
                    sorted_name_list(names));
  while (rows->next()) deleting.push_back(rows->getString(1));
  return deleting;
}

void record_workunit_inputs(Database& db, int64_t wu_id, const std::vector<std::string>& file_names) {
  take_download_files(db, file_names);
  if (file_names.empty()) return;
  exec(db,
       "INSERT IGNORE INTO workunit_input (workunitid, file_name) SELECT ?, wanted.wanted_name FROM " +
           kNameListTable,
       wu_id, sorted_name_list(file_names));
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
