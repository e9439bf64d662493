// Implementation of db/result_store.h.
#include "db/result_store.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "db/file_store.h"
#include "db/id_list.h"
#include "db/multi_row_insert.h"
#include "db/reportable_result.h"
#include "db/sql.h"

namespace tharsis {
namespace {

// The result's columns in read_row's order; the file lists a read leaves (ResultText::None)
// are selected as '' under their own names.
std::string result_columns(ResultText text) {
  const char* texts =
      text == ResultText::FileLists ? "xml_doc_in, xml_doc_out" : "'' AS xml_doc_in, '' AS xml_doc_out";
  return std::string(
             "id, create_time, workunitid, appid, name, server_state, outcome, client_state, "
             "file_delete_state, validate_state, report_deadline, hostid, userid, sent_time, "
             "received_time, app_version_id, exit_status, cpu_time, elapsed_time, ") +
         texts + ", claimed_credit, granted_credit, random, priority";
}
const std::string kColumns = result_columns(ResultText::FileLists);
const std::string& columns_for(ResultText text) {
  static const std::string none = result_columns(ResultText::None);
  return text == ResultText::FileLists ? kColumns : none;
}

// A row of a SELECT of result_columns(), read by position in that order (a read by name
// costs an upper-cased copy and a map search per column).
ResultRow read_row(sql::ResultSet& r) {
  uint32_t column = 0;
  ResultRow x;
  x.id = r.getInt64(++column);
  x.create_time = r.getInt64(++column);
  x.workunitid = r.getInt64(++column);
  x.appid = r.getInt64(++column);
  x.name = r.getString(++column);
  x.server_state = static_cast<ServerState>(r.getInt(++column));
  x.outcome = static_cast<Outcome>(r.getInt(++column));
  x.client_state = static_cast<ClientState>(r.getInt(++column));
  x.file_delete_state = static_cast<FileDeleteState>(r.getInt(++column));
  x.validate_state = static_cast<ValidateState>(r.getInt(++column));
  x.report_deadline = r.getInt64(++column);
  x.hostid = r.getInt64(++column);
  x.userid = r.getInt64(++column);
  x.sent_time = r.getInt64(++column);
  x.received_time = r.getInt64(++column);
  x.app_version_id = r.getInt64(++column);
  x.exit_status = r.getInt(++column);
  x.cpu_time = r.getDouble(++column);
  x.elapsed_time = r.getDouble(++column);
  x.xml_doc_in = r.getString(++column);
  x.xml_doc_out = r.getString(++column);
  x.claimed_credit = r.getDouble(++column);
  x.granted_credit = r.getDouble(++column);
  x.random = r.getInt(++column);
  x.priority = r.getInt(++column);
  return x;
}

std::vector<ResultRow> read_all(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<ResultRow> out;
  while (rows->next()) out.push_back(read_row(*rows));
  return out;
}

const std::string kInsertHead =
    "INSERT INTO result (create_time, workunitid, appid, name, server_state, outcome, client_state, "
    "file_delete_state, validate_state, report_deadline, hostid, userid, sent_time, received_time, "
    "app_version_id, exit_status, cpu_time, elapsed_time, xml_doc_in, xml_doc_out, claimed_credit, "
    "granted_credit, random, priority) VALUES ";
constexpr int kInsertFields = 24;

void bind_insert(sql::PreparedStatement& st, int& index, const ResultRow& x) {
  st.setInt64(index++, x.create_time);
  st.setInt64(index++, x.workunitid);
  st.setInt64(index++, x.appid);
  st.setString(index++, x.name);
  st.setInt(index++, static_cast<int>(x.server_state));
  st.setInt(index++, static_cast<int>(x.outcome));
  st.setInt(index++, static_cast<int>(x.client_state));
  st.setInt(index++, static_cast<int>(x.file_delete_state));
  st.setInt(index++, static_cast<int>(x.validate_state));
  st.setInt64(index++, x.report_deadline);
  st.setInt64(index++, x.hostid);
  st.setInt64(index++, x.userid);
  st.setInt64(index++, x.sent_time);
  st.setInt64(index++, x.received_time);
  st.setInt64(index++, x.app_version_id);
  st.setInt(index++, x.exit_status);
  st.setDouble(index++, x.cpu_time);
  st.setDouble(index++, x.elapsed_time);
  st.setString(index++, x.xml_doc_in);
  st.setString(index++, x.xml_doc_out);
  st.setDouble(index++, x.claimed_credit);
  st.setDouble(index++, x.granted_credit);
  st.setInt(index++, x.random);
  st.setInt(index++, x.priority);
}

}  // namespace

int64_t insert_result(Database& db, const ResultRow& x) {
  insert_result_row(db, x);
  return last_insert_id(db);
}

void insert_result_row(Database& db, const ResultRow& x) { insert_result_rows(db, {x}); }

void insert_result_rows(Database& db, const std::vector<ResultRow>& rows) {
  insert_rows(db, kInsertHead, kInsertFields, rows, bind_insert,
              [](const ResultRow& r) { return r.name.size() + r.xml_doc_in.size() + r.xml_doc_out.size(); });
}

std::optional<ResultRow> fetch_result(Database& db, int64_t id, bool for_update) {
  auto rows =
      query(db, "SELECT " + kColumns + " FROM result WHERE id = ?" + (for_update ? " FOR UPDATE" : ""), id);
  if (!rows->next()) return std::nullopt;
  return read_row(*rows);
}

std::optional<ResultRow> fetch_result_by_name(Database& db, const std::string& name, bool for_update) {
  auto rows = query(
      db, "SELECT " + kColumns + " FROM result WHERE name = ?" + (for_update ? " FOR UPDATE" : ""), name);
  if (!rows->next()) return std::nullopt;
  return read_row(*rows);
}

std::vector<ResultRow> fetch_results_of_workunit(Database& db, int64_t wu_id, bool for_update,
                                                 ResultText text) {
  return read_all(query(db,
                        "SELECT " + columns_for(text) + " FROM result WHERE workunitid = ? ORDER BY id" +
                            (for_update ? " FOR UPDATE" : ""),
                        wu_id));
}

std::vector<ResultRow> fetch_results_of_workunits(Database& db, const std::vector<int64_t>& wu_ids,
                                                  bool for_update, ResultText text) {
  // Sorted here, not by ORDER BY: a server-side sort of rows with MEDIUMTEXT columns cost
  // twice the read itself.
  auto rows = read_all(query(db,
                             "SELECT " + columns_for(text) + " FROM " + kIdListTable +
                                 " STRAIGHT_JOIN result FORCE INDEX (res_wuid) ON result.workunitid = "
                                 "wanted.wanted_id" +
                                 (for_update ? " FOR UPDATE" : ""),
                             id_list_json(wu_ids)));
  std::sort(rows.begin(), rows.end(), [](const ResultRow& a, const ResultRow& b) {
    return a.workunitid != b.workunitid ? a.workunitid < b.workunitid : a.id < b.id;
  });
  return rows;
}

std::vector<ResultRow> fetch_file_delete_ready_results(Database& db, Shard shard, int limit, int64_t now,
                                                       int64_t after_id, int64_t upto_id) {
  // A graph operand's canonical output is its successors' input: it stays until the
  // operand is FREED, FATAL or CANCELLED (docs/operand_graphs.md), whatever file_delete_state says.
  return read_all(
      query(db,
            "SELECT " + kColumns +
                " FROM result FORCE INDEX (res_file_delete) WHERE file_delete_state = ? AND id > ? "
                "AND id <= ? AND id % ? = ? AND NOT EXISTS ("
                "SELECT 1 FROM operand o JOIN workunit w ON w.id = o.workunitid "
                "WHERE o.workunitid = result.workunitid AND w.canonical_resultid = result.id "
                "AND o.state NOT IN (?, ?, ?)) AND NOT EXISTS (SELECT 1 FROM file_delete_retry f "
                "WHERE f.owner = ? AND f.id = result.id AND f.next_time > ?) ORDER BY id LIMIT ?",
            FileDeleteState::Ready, after_id, upto_id, shard.n, shard.id, OperandState::Freed,
            OperandState::Fatal, OperandState::Cancelled, FileOwner::Result, now, limit));
}

std::string fetch_result_stderr(Database& db, int64_t result_id) {
  auto rows = query(db, "SELECT stderr_out FROM result_stderr WHERE resultid = ?", result_id);
  return rows->next() ? std::string(rows->getString(1)) : std::string();
}

bool update_result_guarded(Database& db, const ResultUpdate& u) {
  const ResultRow& a = u.after;
  const ResultRow& b = u.before;
  return exec(db,
              "UPDATE result SET server_state = ?, outcome = ?, client_state = ?, "
              "file_delete_state = ?, validate_state = ?, report_deadline = ?, granted_credit = ? "
              "WHERE id = ? AND server_state = ? AND outcome = ? AND file_delete_state = ? "
              "AND validate_state = ?",
              a.server_state, a.outcome, a.client_state, a.file_delete_state, a.validate_state,
              a.report_deadline, a.granted_credit, a.id, b.server_state, b.outcome, b.file_delete_state,
              b.validate_state) > 0;
}

int64_t update_results_guarded(Database& db, const std::vector<ResultUpdate>& updates) {
  // One JSON row per update: id, the guard (state before), then the columns to write.
  std::string json = "[";
  for (const auto& u : updates) {
    const ResultRow& a = u.after;
    const ResultRow& b = u.before;
    if (!std::isfinite(a.granted_credit)) continue;  // not a JSON number: left unmatched
    if (json.size() > 1) json += ',';
    json += "[" + std::to_string(a.id);
    for (int v :
         {static_cast<int>(b.server_state), static_cast<int>(b.outcome),
          static_cast<int>(b.file_delete_state), static_cast<int>(b.validate_state),
          static_cast<int>(a.server_state), static_cast<int>(a.outcome), static_cast<int>(a.client_state),
          static_cast<int>(a.file_delete_state), static_cast<int>(a.validate_state)}) {
      json += "," + std::to_string(v);
    }
    json += "," + std::to_string(a.report_deadline) + "," + json_double(a.granted_credit) + "]";
  }
  if (json.size() == 1) return 0;
  return exec(db,
              "UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', "
              "old_server_state INT PATH '$[1]', old_outcome INT PATH '$[2]', "
              "old_file_delete_state INT PATH '$[3]', old_validate_state INT PATH '$[4]', "
              "server_state INT PATH '$[5]', outcome INT PATH '$[6]', client_state INT PATH '$[7]', "
              "file_delete_state INT PATH '$[8]', validate_state INT PATH '$[9]', "
              "report_deadline BIGINT PATH '$[10]', granted_credit DOUBLE PATH '$[11]')) u "
              "STRAIGHT_JOIN result r FORCE INDEX (PRIMARY) ON r.id = u.id "
              "SET r.server_state = u.server_state, r.outcome = u.outcome, r.client_state = u.client_state, "
              "r.file_delete_state = u.file_delete_state, r.validate_state = u.validate_state, "
              "r.report_deadline = u.report_deadline, r.granted_credit = u.granted_credit "
              "WHERE r.server_state = u.old_server_state AND r.outcome = u.old_outcome "
              "AND r.file_delete_state = u.old_file_delete_state AND r.validate_state = u.old_validate_state",
              json + "]");
}

}  // namespace tharsis

namespace tharsis {
std::vector<ResultRow> fetch_results_of_workunit_range(Database& db, int64_t first_wu, int64_t last_wu) {
  return read_all(query(
      db, "SELECT " + kColumns + " FROM result WHERE workunitid BETWEEN ? AND ? ORDER BY workunitid, id",
      first_wu, last_wu));
}
}  // namespace tharsis

namespace tharsis {
namespace {

// The result/workunit pair a scheduler write touches, locked workunit first: the daemons lock
// the workunit row and then its results, and taking locks in the same order keeps the
// scheduler out of deadlocks with them. STRAIGHT_JOIN fixes that order inside one
// multi-table UPDATE (MariaDB reads, and so locks, the tables in join order).
const std::string kWorkunitThenResult = "workunit w STRAIGHT_JOIN result r ON r.workunitid = w.id";

// Locks the workunit of result `result_id`, sent to `host_id` and still taking its report
// (db/reportable_result.h): write_report decides on the rows as they are under this lock.
// Returns the workunit id, or 0.
int64_t lock_workunit_of_reportable(Database& db, int64_t result_id, int64_t host_id) {
  const std::string sql =
      "SELECT id FROM workunit WHERE id = " + reportable_result_workunit("x.id = ?", "?") + " FOR UPDATE";
  auto rows = SqlAccess::run(db, sql, [&](sql::PreparedStatement& st) {
    sql_bind::bind_all(st, 1, result_id, host_id);
    bind_reportable_states(st, 3);
    return std::unique_ptr<sql::ResultSet>(st.executeQuery());
  });
  return rows->next() ? rows->getInt64(1) : 0;
}

// A report taken replaces the stderr a result may have from an earlier taken report.
const std::string kReplaceStderr = " ON DUPLICATE KEY UPDATE stderr_out = VALUES(stderr_out)";

// The report write itself, the workunit already locked: result -> OVER with the client's
// outcome and the workunit's transition_time = now, in one statement (its stderr is
// store_stderr's). The result comes first here: a multi-table UPDATE changes its first
// table in place and the others through a temporary table, which for the result's
// MEDIUMTEXT column would be one on disk per report; the workunit's one BIGINT stays in
// memory.
// Which results take the report is sched/lib/result_acceptance.h's rule, written out in
// the WHERE clause so that it is decided on the rows as they are now, under the lock (a
// transitioner that timed the result out while this request waited has been seen through):
// IN_PROGRESS, or late — OVER with NO_REPLY or CLIENT_DETACHED while the workunit has no
// canonical result, no error and is not assimilated, and the result was neither validated
// nor its files deleted (both INIT, as they are for a timed-out result). A late result
// takes the outcome reported like any other (success or client error).
// The rule's condition on `r` (the result) and `w` (its workunit), its parameters bound
// by write_report.
const std::string kTakesReport =
    "(r.server_state = ? OR (r.server_state = ? AND r.outcome IN (?, ?) AND r.validate_state = ? AND "
    "r.file_delete_state = ? AND w.canonical_resultid = 0 AND w.error_mask = 0 AND w.assimilate_state = ?))";

template <class Key>
bool write_report(Database& db, int64_t wu_id, const std::string& key_column, const Key& key, int64_t host_id,
                  int64_t now, const ResultReport& rp) {
  const std::string sql =
      "UPDATE result r STRAIGHT_JOIN workunit w ON w.id = r.workunitid SET r.server_state = ?, "
      "r.outcome = ?, r.client_state = ?, r.exit_status = ?, r.cpu_time = ?, r.elapsed_time = ?, "
      "r.claimed_credit = ?, r.xml_doc_out = ?, r.received_time = ?, "
      "w.transition_time = ? WHERE w.id = ? AND r." +
      key_column + " = ? AND r.hostid = ? AND " + kTakesReport;
  return exec(db, sql, ServerState::Over, rp.outcome, rp.client_state, rp.exit_status, rp.cpu_time,
              rp.elapsed_time, rp.claimed_credit, rp.xml_doc_out, now, now, wu_id, key, host_id,
              ServerState::InProgress, ServerState::Over, Outcome::NoReply, Outcome::ClientDetached,
              ValidateState::Init, FileDeleteState::Init, AssimilateState::Init) > 0;
}

}  // namespace

namespace {

// The send as one statement; `once_per_host` adds "this host never had a result of this
// workunit" (read under the workunit's lock, so no concurrent send slips between).
// On a Galera cluster that lock is one node's only, and the workunit row is often not
// changed (transition_time already earlier): two RPCs of one host on two nodes are kept
// apart instead by the host row, which the claiming transaction always changes
// (update_host / add_results_sent count the results sent), so the second to commit fails
// certification (a deadlock error) and its re-run sees the first's result.
bool claim(Database& db, const SendClaim& c, bool once_per_host) {
  int64_t deadline = c.now + c.delay_bound;
  const std::string sql = "UPDATE " + kWorkunitThenResult +
                          " SET r.server_state = ?, r.hostid = ?, r.userid = ?, r.sent_time = ?, "
                          "r.report_deadline = ?, r.app_version_id = ?, "
                          "w.transition_time = LEAST(w.transition_time, ?) "
                          "WHERE w.id = ? AND r.id = ? AND r.server_state = ?";
  // Matched rows (CLIENT_FOUND_ROWS): 2 when the result was UNSENT and of this workunit,
  // 0 when another scheduler process claimed it first.
  if (!once_per_host) {
    return exec(db, sql, ServerState::InProgress, c.host_id, c.user_id, c.now, deadline, c.app_version_id,
                deadline, c.workunit_id, c.result_id, ServerState::Unsent) > 0;
  }
  return exec(db, sql + " AND NOT EXISTS (SELECT 1 FROM result h WHERE h.workunitid = w.id AND h.hostid = ?)",
              ServerState::InProgress, c.host_id, c.user_id, c.now, deadline, c.app_version_id, deadline,
              c.workunit_id, c.result_id, ServerState::Unsent, c.host_id) > 0;
}

}  // namespace

bool claim_unsent_result(Database& db, const SendClaim& c) { return claim(db, c, /*once_per_host=*/true); }

std::vector<int64_t> claim_unsent_results(Database& db, const std::vector<SendClaim>& claims) {
  if (claims.empty()) return {};
  if (claims.size() == 1) {
    if (claim_unsent_result(db, claims[0])) return {claims[0].result_id};
    return {};
  }
  const int64_t now = claims.front().now;
  std::set<std::pair<int64_t, int64_t>> host_workunits;
  std::set<int64_t> workunits;
  std::string json = "[";
  std::vector<int64_t> ids;
  for (const auto& c : claims) {
    if (c.now != now) throw std::invalid_argument("claim_unsent_results: claims of more than one time");
    if (!host_workunits.emplace(c.host_id, c.workunit_id).second)
      throw std::invalid_argument("claim_unsent_results: two claims of workunit " +
                                  std::to_string(c.workunit_id) + " for host " + std::to_string(c.host_id));
    workunits.insert(c.workunit_id);
    json += (ids.empty() ? "[" : ",[") + std::to_string(c.result_id) + "," + std::to_string(c.workunit_id) +
            "," + std::to_string(c.now + c.delay_bound) + "," + std::to_string(c.app_version_id) + "," +
            std::to_string(c.host_id) + "," + std::to_string(c.user_id) + "]";
    ids.push_back(c.result_id);
  }
  json += "]";
  // The list drives the join (STRAIGHT_JOIN): each workunit row, then its result, locked
  // in the list's order, as the one-claim statement does for one pair. exists_to_in off:
  // the once-per-host guard stays a res_wu_host lookup per workunit; MariaDB would
  // otherwise materialize all of the host's results, its whole history, for every round.
  int64_t matched =
      exec(db,
           "SET STATEMENT optimizer_switch = 'exists_to_in=off' FOR UPDATE JSON_TABLE(?, '$[*]' COLUMNS "
           "(result_id BIGINT PATH '$[0]', workunit_id BIGINT PATH '$[1]', deadline BIGINT PATH '$[2]', "
           "app_version_id BIGINT PATH '$[3]', host_id BIGINT PATH '$[4]', user_id BIGINT PATH '$[5]')) c "
           "STRAIGHT_JOIN workunit w FORCE INDEX (PRIMARY) ON w.id = c.workunit_id "
           "STRAIGHT_JOIN result r FORCE INDEX (PRIMARY) ON r.id = c.result_id AND r.workunitid = w.id "
           "SET r.server_state = ?, r.hostid = c.host_id, r.userid = c.user_id, r.sent_time = ?, "
           "r.report_deadline = c.deadline, r.app_version_id = c.app_version_id, "
           "w.transition_time = LEAST(w.transition_time, c.deadline) "
           "WHERE r.server_state = ? AND NOT EXISTS (SELECT 1 FROM result h WHERE h.workunitid = w.id AND "
           "h.hostid = c.host_id)",
           json, ServerState::InProgress, now, ServerState::Unsent);
  // Matched rows (CLIENT_FOUND_ROWS): a result per claim that went through and its
  // workunit, counted once however many of its results went.
  if (workunits.size() == claims.size() && matched == 2 * static_cast<int64_t>(claims.size())) return ids;
  std::map<int64_t, int64_t> host_of;
  for (const auto& c : claims) host_of[c.result_id] = c.host_id;
  std::vector<int64_t> won;
  auto rows = query(db,
                    "SELECT r.id, r.hostid FROM " + kIdListTable +
                        " STRAIGHT_JOIN result r FORCE INDEX (PRIMARY) ON r.id = wanted.wanted_id "
                        "WHERE r.server_state = ? AND r.sent_time = ?",
                    id_list_json(ids), ServerState::InProgress, now);
  std::set<int64_t> now_sent;
  while (rows->next()) {
    if (host_of[rows->getInt64(1)] == rows->getInt64(2)) now_sent.insert(rows->getInt64(1));
  }
  for (int64_t id : ids) {
    if (now_sent.count(id)) won.push_back(id);
  }
  return won;
}

bool host_has_result_of(Database& db, int64_t workunit_id, int64_t host_id) {
  // The few rows of one workunit, by res_wuid.
  return query_int(db, "SELECT COUNT(*) FROM result WHERE workunitid = ? AND hostid = ?", workunit_id,
                   host_id) > 0;
}

bool mark_result_sent(Database& db, int64_t result_id, int64_t host_id, int64_t user_id, int64_t now,
                      int delay_bound, int64_t app_version_id) {
  int64_t wu_id = query_int(db, "SELECT workunitid FROM result WHERE id = ?", result_id);
  if (wu_id == 0) return false;
  return claim(db, SendClaim{result_id, wu_id, host_id, user_id, now, delay_bound, app_version_id},
               /*once_per_host=*/false);
}

bool refresh_sent_result(Database& db, int64_t result_id, int64_t workunit_id, int64_t host_id, int64_t now,
                         int delay_bound) {
  int64_t deadline = now + delay_bound;
  return exec(db,
              "UPDATE " + kWorkunitThenResult +
                  " SET r.sent_time = ?, r.report_deadline = ?, w.transition_time = LEAST(w.transition_time, "
                  "?) "
                  "WHERE w.id = ? AND r.id = ? AND r.hostid = ? AND r.server_state = ?",
              now, deadline, deadline, workunit_id, result_id, host_id, ServerState::InProgress) > 0;
}

bool mark_result_reported(Database& db, int64_t result_id, int64_t host_id, int64_t now,
                          const ResultReport& rp) {
  int64_t wu_id = lock_workunit_of_reportable(db, result_id, host_id);
  if (wu_id == 0 || !write_report(db, wu_id, "id", result_id, host_id, now, rp)) return false;
  if (!rp.stderr_out.empty()) {
    exec(db, "INSERT INTO result_stderr (resultid, stderr_out) VALUES (?, ?)" + kReplaceStderr, result_id,
         rp.stderr_out);
  }
  return true;
}

bool mark_result_reported_by_name(Database& db, const std::string& name, int64_t host_id, int64_t now,
                                  const ResultReport& rp) {
  return !mark_results_reported_by_name(db, {{name, rp}}, host_id, now).empty();
}

namespace {

// " CASE r.name WHEN ? THEN ? ... END" for `n` names.
std::string case_by_name(size_t n) {
  std::string text = " CASE r.name";
  for (size_t i = 0; i < n; ++i) text += " WHEN ? THEN ?";
  return text + " END";
}

// The reports of `reports` (their workunits locked) written as one statement: write_report's
// statement with each per-report value chosen by name (CASE; bound parameters, not JSON, so
// the client's bytes go in as they are). The result is the join's first table, changed in
// place: a later table's values pass through a temporary table, which with the result's
// MEDIUMTEXT column would be one on disk per statement (measured: 0.6 ms more per report).
// Returns the rows matched (a result and its workunit each per report taken).
// `host_of[i]`: the host reports[i] must be sent to; one host for all is "r.hostid = ?", several a
// CASE by name (a group of requests, write_locked_reports_of_hosts).
int64_t write_reports(Database& db, const std::vector<const NamedReport*>& reports,
                      const std::vector<int64_t>& host_of, int64_t now) {
  const size_t n = reports.size();
  static const char* const kPerReport[] = {"outcome",      "client_state",   "exit_status", "cpu_time",
                                           "elapsed_time", "claimed_credit", "xml_doc_out"};
  std::string sql = "UPDATE result r STRAIGHT_JOIN workunit w ON w.id = r.workunitid SET r.server_state = ?";
  for (const char* column : kPerReport) sql += std::string(", r.") + column + " =" + case_by_name(n);
  sql += ", r.received_time = ?, w.transition_time = ? WHERE r.name IN (?";
  for (size_t i = 1; i < n; ++i) sql += ", ?";
  const bool one_host =
      std::all_of(host_of.begin(), host_of.end(), [&](int64_t h) { return h == host_of[0]; });
  sql += ") AND r.hostid = " + (one_host ? std::string("?") : case_by_name(n)) + " AND " + kTakesReport;
  return exec_bound(db, sql, [&](sql::PreparedStatement& st) {
    int i = 1;
    sql_bind::bind(st, i++, ServerState::Over);
    auto each = [&](auto value_of) {
      for (const NamedReport* r : reports) {
        sql_bind::bind(st, i++, r->name);
        sql_bind::bind(st, i++, value_of(r->report));
      }
    };
    each([](const ResultReport& rp) { return rp.outcome; });
    each([](const ResultReport& rp) { return rp.client_state; });
    each([](const ResultReport& rp) { return rp.exit_status; });
    each([](const ResultReport& rp) { return rp.cpu_time; });
    each([](const ResultReport& rp) { return rp.elapsed_time; });
    each([](const ResultReport& rp) { return rp.claimed_credit; });
    each([](const ResultReport& rp) -> const std::string& { return rp.xml_doc_out; });
    sql_bind::bind_all(st, i, now, now);
    i += 2;
    for (const NamedReport* r : reports) sql_bind::bind(st, i++, r->name);
    if (one_host) {
      sql_bind::bind(st, i++, host_of[0]);
    } else {
      for (size_t k = 0; k < n; ++k)
        sql_bind::bind_all(st, i + 2 * static_cast<int>(k), reports[k]->name, host_of[k]);
      i += 2 * static_cast<int>(n);
    }
    sql_bind::bind_all(st, i, ServerState::InProgress, ServerState::Over, Outcome::NoReply,
                       Outcome::ClientDetached, ValidateState::Init, FileDeleteState::Init,
                       AssimilateState::Init);
  });
}

// The stderr of the reports taken (`taken`, each accepted by the guarded write) into
// result_stderr, the result ids read by name in the same statement; none for a report
// without stderr, so a request whose reports carry none runs no statement here. One
// statement for the request unless it is over kMaxRowsPerStatement reports or
// kMaxBytesPerStatement of text (then one per such share). Its row count is padded to a
// power of two with the first name again (its second WHEN never matches; its '' costs no
// bytes) so that a connection caches a handful of statement texts.
void store_stderr(Database& db, const std::vector<const NamedReport*>& taken) {
  std::vector<const NamedReport*> with;
  for (const NamedReport* r : taken) {
    if (!r->report.stderr_out.empty()) with.push_back(r);
  }
  for (size_t first = 0; first < with.size();) {
    const size_t n = rows_that_fit(with.size() - first, [&](size_t i) {
      return with[first + i]->report.stderr_out.size() + 2 * with[first + i]->name.size();
    });
    size_t padded = 1;
    while (padded < n) padded *= 2;
    std::string sql = "INSERT INTO result_stderr (resultid, stderr_out) SELECT r.id," + case_by_name(padded) +
                      " FROM result r WHERE r.name IN (?";
    for (size_t i = 1; i < padded; ++i) sql += ", ?";
    sql += ")" + kReplaceStderr;
    exec_bound(db, sql, [&](sql::PreparedStatement& st) {
      int i = 1;
      for (size_t k = 0; k < padded; ++k) {
        const NamedReport* r = with[first + (k < n ? k : 0)];
        sql_bind::bind(st, i++, r->name);
        sql_bind::bind(st, i++, k < n ? r->report.stderr_out : std::string());
      }
      for (size_t k = 0; k < padded; ++k) sql_bind::bind(st, i++, with[first + (k < n ? k : 0)]->name);
    });
    first += n;
  }
}

}  // namespace

ReportLocks lock_workunits_of_reportable(Database& db, const std::vector<std::string>& names,
                                         int64_t host_id) {
  ReportLocks locked;
  if (names.empty()) return locked;
  // The list drives the join; each workunit is read by its primary key (eq_ref).
  const std::string sql = "SELECT wanted.wanted_name, w.id FROM " + kNameListTable +
                          " STRAIGHT_JOIN workunit w ON w.id = " +
                          reportable_result_workunit("x.name = wanted.wanted_name", "?") + " FOR UPDATE";
  auto rows = SqlAccess::run(db, sql, [&](sql::PreparedStatement& st) {
    sql_bind::bind_all(st, 1, name_list_json(names), host_id);
    bind_reportable_states(st, 3);
    return std::unique_ptr<sql::ResultSet>(st.executeQuery());
  });
  while (rows->next()) locked.emplace(rows->getString(1), rows->getInt64(2));
  return locked;
}

std::vector<std::vector<std::string>> write_locked_reports_of_hosts(Database& db,
                                                                    const std::vector<HostReports>& hosts,
                                                                    int64_t now) {
  struct Write {
    const NamedReport* report;
    int64_t host_id;
    size_t entry;
    int64_t workunit_id;
  };
  std::vector<Write> writes;
  for (size_t e = 0; e < hosts.size(); ++e) {
    std::set<std::string> distinct;
    for (const auto& r : *hosts[e].reports) {
      if (!distinct.insert(r.name).second)
        throw std::invalid_argument("write_locked_reports: " + r.name + " reported twice");
      auto lock = hosts[e].locked->find(r.name);
      if (lock != hosts[e].locked->end()) writes.push_back({&r, hosts[e].host_id, e, lock->second});
    }
  }
  std::vector<std::vector<const NamedReport*>> taken(hosts.size());
  for (size_t first = 0; first < writes.size();) {
    size_t rows = next_statement_rows(writes.size() - first, [&](size_t i) {
      const auto& rp = writes[first + i].report->report;
      return rp.xml_doc_out.size() + writes[first + i].report->name.size();
    });
    std::vector<const NamedReport*> chunk;
    std::vector<int64_t> host_of;
    std::set<int64_t> workunits;
    for (size_t i = first; i < first + rows; ++i) {
      chunk.push_back(writes[i].report);
      host_of.push_back(writes[i].host_id);
      workunits.insert(writes[i].workunit_id);
    }
    int64_t matched = write_reports(db, chunk, host_of, now);
    if (workunits.size() == chunk.size() && matched == 2 * static_cast<int64_t>(chunk.size())) {
      for (size_t i = first; i < first + rows; ++i) taken[writes[i].entry].push_back(writes[i].report);
      first += rows;
      continue;
    }
    // Some result changed between the lock's read and the write (the guard refused it), or
    // two results of one workunit were written (its row counted once): the ones taken are
    // those now over at their host with this report's time. Exact: another report of them
    // would be that host's, whose requests take their reports one after the other.
    std::vector<std::string> written;
    for (const NamedReport* r : chunk) written.push_back(r->name);
    auto over = query(db,
                      "SELECT r.name, r.hostid FROM " + kNameListTable +
                          " STRAIGHT_JOIN result r ON r.name = wanted.wanted_name "
                          "WHERE r.server_state = ? AND r.received_time = ?",
                      name_list_json(written), ServerState::Over, now);
    std::set<std::pair<std::string, int64_t>> now_over;
    while (over->next()) now_over.emplace(over->getString(1), over->getInt64(2));
    for (size_t i = first; i < first + rows; ++i) {
      if (now_over.count({writes[i].report->name, writes[i].host_id}))
        taken[writes[i].entry].push_back(writes[i].report);
    }
    first += rows;
  }
  std::vector<const NamedReport*> all_taken;
  for (const auto& entry : taken) all_taken.insert(all_taken.end(), entry.begin(), entry.end());
  store_stderr(db, all_taken);
  std::vector<std::vector<std::string>> names(hosts.size());
  for (size_t e = 0; e < hosts.size(); ++e) {
    for (const NamedReport* r : taken[e]) names[e].push_back(r->name);
  }
  return names;
}

std::vector<std::string> write_locked_reports(Database& db, const std::vector<NamedReport>& reports,
                                              const ReportLocks& locked, int64_t host_id, int64_t now) {
  return write_locked_reports_of_hosts(db, {{host_id, &reports, &locked}}, now).front();
}

std::vector<std::string> mark_results_reported_by_name(Database& db, const std::vector<NamedReport>& reports,
                                                       int64_t host_id, int64_t now) {
  std::vector<std::string> names;
  for (const auto& r : reports) names.push_back(r.name);
  return write_locked_reports(db, reports, lock_workunits_of_reportable(db, names, host_id), host_id, now);
}
}  // namespace tharsis
