// Implementation of db/result_store.h.
#include "db/result_store.h"

namespace tharsis {
namespace {

const std::string kColumns =
    "id, create_time, workunitid, appid, name, server_state, outcome, client_state, "
    "file_delete_state, validate_state, report_deadline, hostid, userid, sent_time, received_time, "
    "app_version_id, exit_status, cpu_time, elapsed_time, xml_doc_in, xml_doc_out, stderr_out, "
    "claimed_credit, granted_credit, random, priority";

ResultRow read_row(sql::ResultSet& r) {
  ResultRow x;
  x.id = r.getInt64("id");
  x.create_time = r.getInt64("create_time");
  x.workunitid = r.getInt64("workunitid");
  x.appid = r.getInt64("appid");
  x.name = r.getString("name");
  x.server_state = static_cast<ServerState>(r.getInt("server_state"));
  x.outcome = static_cast<Outcome>(r.getInt("outcome"));
  x.client_state = static_cast<ClientState>(r.getInt("client_state"));
  x.file_delete_state = static_cast<FileDeleteState>(r.getInt("file_delete_state"));
  x.validate_state = static_cast<ValidateState>(r.getInt("validate_state"));
  x.report_deadline = r.getInt64("report_deadline");
  x.hostid = r.getInt64("hostid");
  x.userid = r.getInt64("userid");
  x.sent_time = r.getInt64("sent_time");
  x.received_time = r.getInt64("received_time");
  x.app_version_id = r.getInt64("app_version_id");
  x.exit_status = r.getInt("exit_status");
  x.cpu_time = r.getDouble("cpu_time");
  x.elapsed_time = r.getDouble("elapsed_time");
  x.xml_doc_in = r.getString("xml_doc_in");
  x.xml_doc_out = r.getString("xml_doc_out");
  x.stderr_out = r.getString("stderr_out");
  x.claimed_credit = r.getDouble("claimed_credit");
  x.granted_credit = r.getDouble("granted_credit");
  x.random = r.getInt("random");
  x.priority = r.getInt("priority");
  return x;
}

std::vector<ResultRow> read_all(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<ResultRow> out;
  while (rows->next()) out.push_back(read_row(*rows));
  return out;
}

}  // namespace

int64_t insert_result(Database& db, const ResultRow& x) {
  db.exec("INSERT INTO result (create_time, workunitid, appid, name, server_state, outcome, "
          "client_state, file_delete_state, validate_state, report_deadline, hostid, userid, "
          "sent_time, received_time, app_version_id, exit_status, cpu_time, elapsed_time, xml_doc_in, "
          "xml_doc_out, stderr_out, claimed_credit, granted_credit, random, priority) "
          "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
          x.create_time, x.workunitid, x.appid, x.name, x.server_state, x.outcome, x.client_state,
          x.file_delete_state, x.validate_state, x.report_deadline, x.hostid, x.userid, x.sent_time,
          x.received_time, x.app_version_id, x.exit_status, x.cpu_time, x.elapsed_time, x.xml_doc_in,
          x.xml_doc_out, x.stderr_out, x.claimed_credit, x.granted_credit, x.random, x.priority);
  return db.last_insert_id();
}

std::optional<ResultRow> fetch_result(Database& db, int64_t id, bool for_update) {
  auto rows = db.query("SELECT " + kColumns + " FROM result WHERE id = ?" + (for_update ? " FOR UPDATE" : ""), id);
  if (!rows->next()) return std::nullopt;
  return read_row(*rows);
}

std::optional<ResultRow> fetch_result_by_name(Database& db, const std::string& name, bool for_update) {
  auto rows = db.query("SELECT " + kColumns + " FROM result WHERE name = ?" + (for_update ? " FOR UPDATE" : ""),
                       name);
  if (!rows->next()) return std::nullopt;
  return read_row(*rows);
}

std::vector<ResultRow> fetch_results_of_workunit(Database& db, int64_t wu_id, bool for_update) {
  return read_all(db.query("SELECT " + kColumns + " FROM result WHERE workunitid = ? ORDER BY id" +
                               (for_update ? " FOR UPDATE" : ""),
                           wu_id));
}

std::vector<ResultRow> fetch_file_delete_ready_results(Database& db, Shard shard, int limit) {
  // A graph operand's canonical output is its successors' input: it stays until the
  // operand is FREED, FATAL or CANCELLED (DESIGN §6), whatever file_delete_state says.
  return read_all(db.query("SELECT " + kColumns +
                               " FROM result WHERE file_delete_state = ? AND id % ? = ? AND NOT EXISTS ("
                               "SELECT 1 FROM operand o JOIN workunit w ON w.id = o.workunitid "
                               "WHERE o.workunitid = result.workunitid AND w.canonical_resultid = result.id "
                               "AND o.state NOT IN (?, ?, ?)) LIMIT ?",
                           FileDeleteState::Ready, shard.n, shard.id, OperandState::Freed, OperandState::Fatal,
                           OperandState::Cancelled, limit));
}

std::vector<ResultRow> fetch_in_progress_results_of_host(Database& db, int64_t host_id) {
  return read_all(db.query("SELECT " + kColumns + " FROM result WHERE hostid = ? AND server_state = ?",
                           host_id, ServerState::InProgress));
}

void update_result(Database& db, const ResultRow& x) {
  db.exec("UPDATE result SET server_state = ?, outcome = ?, client_state = ?, file_delete_state = ?, "
          "validate_state = ?, report_deadline = ?, hostid = ?, userid = ?, sent_time = ?, "
          "received_time = ?, app_version_id = ?, exit_status = ?, cpu_time = ?, elapsed_time = ?, "
          "xml_doc_in = ?, xml_doc_out = ?, stderr_out = ?, claimed_credit = ?, granted_credit = ?, "
          "priority = ? WHERE id = ?",
          x.server_state, x.outcome, x.client_state, x.file_delete_state, x.validate_state,
          x.report_deadline, x.hostid, x.userid, x.sent_time, x.received_time, x.app_version_id,
          x.exit_status, x.cpu_time, x.elapsed_time, x.xml_doc_in, x.xml_doc_out, x.stderr_out,
          x.claimed_credit, x.granted_credit, x.priority, x.id);
}

bool update_result_guarded(Database& db, const ResultUpdate& u) {
  const ResultRow& a = u.after;
  const ResultRow& b = u.before;
  return db.exec("UPDATE result SET server_state = ?, outcome = ?, client_state = ?, "
                 "file_delete_state = ?, validate_state = ?, report_deadline = ?, granted_credit = ? "
                 "WHERE id = ? AND server_state = ? AND outcome = ? AND file_delete_state = ? "
                 "AND validate_state = ?",
                 a.server_state, a.outcome, a.client_state, a.file_delete_state, a.validate_state,
                 a.report_deadline, a.granted_credit, a.id, b.server_state, b.outcome,
                 b.file_delete_state, b.validate_state) > 0;
}

}  // namespace tharsis

namespace tharsis {
std::vector<ResultRow> fetch_results_of_workunit_range(Database& db, int64_t first_wu, int64_t last_wu) {
  return read_all(db.query("SELECT " + kColumns +
                               " FROM result WHERE workunitid BETWEEN ? AND ? ORDER BY workunitid, id",
                           first_wu, last_wu));
}
}  // namespace tharsis

namespace tharsis {
namespace {
// Locks the result's workunit row before any result row: the daemons lock workunit then
// results, and taking locks in the same order keeps the scheduler out of deadlocks.
int64_t lock_workunit_of_result(Database& db, int64_t result_id) {
  int64_t wu_id = db.query_int("SELECT workunitid FROM result WHERE id = ?", result_id);
  if (wu_id == 0) return 0;
  return db.query_int("SELECT id FROM workunit WHERE id = ? FOR UPDATE", wu_id);
}
}  // namespace

bool mark_result_sent(Database& db, int64_t result_id, int64_t host_id, int64_t user_id, int64_t now,
                      int delay_bound, int64_t app_version_id) {
  int64_t deadline = now + delay_bound;
  int64_t wu_id = lock_workunit_of_result(db, result_id);
  if (wu_id == 0) return false;
  bool sent = db.exec("UPDATE result SET server_state = ?, hostid = ?, userid = ?, sent_time = ?, "
                      "report_deadline = ?, app_version_id = ? WHERE id = ? AND server_state = ?",
                      ServerState::InProgress, host_id, user_id, now, deadline, app_version_id, result_id,
                      ServerState::Unsent) > 0;
  if (sent) {
    db.exec("UPDATE workunit SET transition_time = LEAST(transition_time, ?) WHERE id = ?", deadline, wu_id);
  }
  return sent;
}

bool mark_result_reported(Database& db, int64_t result_id, int64_t host_id, int64_t now, const ResultReport& rp) {
  int64_t wu_id = lock_workunit_of_result(db, result_id);
  if (wu_id == 0) return false;
  bool reported = db.exec("UPDATE result SET server_state = ?, outcome = ?, client_state = ?, exit_status = ?, "
                          "cpu_time = ?, elapsed_time = ?, claimed_credit = ?, xml_doc_out = ?, stderr_out = ?, "
                          "received_time = ? WHERE id = ? AND hostid = ? AND server_state = ?",
                          ServerState::Over, rp.outcome, rp.client_state, rp.exit_status, rp.cpu_time,
                          rp.elapsed_time, rp.claimed_credit, rp.xml_doc_out, rp.stderr_out, now, result_id,
                          host_id, ServerState::InProgress) > 0;
  if (reported) db.exec("UPDATE workunit SET transition_time = ? WHERE id = ?", now, wu_id);
  return reported;
}
}  // namespace tharsis
