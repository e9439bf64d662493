// Implementation of db/send_store.h.
#include "db/send_store.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "db/id_list.h"
#include "db/sql.h"
#include "db/states.h"

namespace tharsis {

namespace {

// The operand's host preference comes from subqueries run for the rows returned only: as
// a LEFT JOIN, the optimizer may join the whole unsent queue first (block nested loop +
// filesort, a scan of every unsent result per RPC) instead of stopping at LIMIT.
const std::string kCandidateColumns =
    "SELECT r.id, r.workunitid, r.appid, r.priority, w.rsc_fpops_est, w.rsc_memory_bound, w.rsc_disk_bound, "
    "w.delay_bound, "
    "COALESCE((SELECT o.preferred_host FROM operand o WHERE o.workunitid = r.workunitid LIMIT 1), 0), "
    "COALESCE((SELECT o.preferred_until FROM operand o WHERE o.workunitid = r.workunitid LIMIT 1), 0) ";
const std::string kCandidateFrom =
    "FROM result r JOIN workunit w ON w.id = r.workunitid WHERE r.server_state = ? ";
const std::string kCandidateSelect = kCandidateColumns + kCandidateFrom;
const std::string kCandidateOrder = "ORDER BY r.priority DESC, r.id LIMIT ?";

SendCandidateRow candidate_of_columns(sql::ResultSet& rows) {
  SendCandidateRow c;
  c.result_id = rows.getInt64(1);
  c.workunit_id = rows.getInt64(2);
  c.appid = rows.getInt64(3);
  c.priority = rows.getInt(4);
  c.rsc_fpops_est = rows.getDouble(5);
  c.rsc_memory_bound = rows.getDouble(6);
  c.rsc_disk_bound = rows.getDouble(7);
  c.delay_bound = rows.getInt(8);
  c.preferred_host = rows.getInt64(9);
  c.preferred_until = rows.getInt64(10);
  return c;
}

std::vector<SendCandidateRow> read_candidates(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<SendCandidateRow> out;
  while (rows->next()) out.push_back(candidate_of_columns(*rows));
  return out;
}

// Workunits the host already had a result of are passed over while walking the res_send
// index (one res_wu_host lookup per row walked): a host holding one result of each of the
// first thousand workunits still gets the first one it may take, reading the thousand
// rows it skips and LIMIT more (about 2.3 rows read per row skipped), never the rest of
// the queue. exists_to_in is off for these statements: MariaDB would otherwise turn the
// NOT EXISTS into a NOT IN over a table materialized from all of the host's results,
// its whole history, at every request.
const std::string kNotHeldByHost =
    "AND NOT EXISTS (SELECT 1 FROM result h WHERE h.workunitid = r.workunitid AND h.hostid = ?) ";

std::string comma_list(const std::vector<int64_t>& ids) {
  std::string list;
  for (size_t i = 0; i < ids.size(); ++i) list += (i ? "," : "") + std::to_string(ids[i]);
  return list;
}

// The rest of check_candidate's rules, each on the row being walked (the workunit row is
// read by its key for every result row anyway): the same rows read as the host-only
// query when the head of the queue suits the host, and no stop at a window of rows it
// cannot take when it does not.
const std::string kFilteredCandidates =
    "SET STATEMENT optimizer_switch = 'exists_to_in=off' FOR " + kCandidateSelect + kNotHeldByHost +
    "AND NOT FIND_IN_SET(r.appid, ?) "
    "AND (w.rsc_memory_bound <= 0 OR ? <= 0 OR w.rsc_memory_bound <= ?) "
    "AND (w.rsc_disk_bound <= 0 OR w.rsc_disk_bound <= ?) "
    "AND (w.delay_bound <= 0 OR w.rsc_fpops_est <= ? * w.delay_bound) "
    "AND NOT EXISTS (SELECT 1 FROM operand o WHERE o.workunitid = r.workunitid AND o.preferred_host <> 0 "
    "AND o.preferred_host <> ? AND o.preferred_until > ?) " +
    kCandidateOrder;

std::vector<SendCandidateRow> filtered_candidates(Database& db, const std::string& sql, const SendFilter& f,
                                                  int limit) {
  double flops = f.flops > 0 ? f.flops : 1e9;
  return read_candidates(query(db, sql, ServerState::Unsent, f.host_id, comma_list(f.apps_not_runnable),
                               f.memory_bytes, f.memory_bytes, f.disk_free_bytes, flops, f.host_id, f.now,
                               limit));
}

}  // namespace

std::vector<SendCandidateRow> fetch_send_candidates(Database& db, const SendFilter& f, int limit) {
  return filtered_candidates(db, kFilteredCandidates, f, limit);
}

std::vector<SendCandidateRow> lock_send_candidates(Database& db, const SendFilter& f, int limit) {
  // Locks each result row returned and its workunit's; the subqueries read without locks
  // (a row another transaction holds still counts in them).
  static const std::string sql = kFilteredCandidates + " FOR UPDATE SKIP LOCKED";
  return filtered_candidates(db, sql, f, limit);
}

std::vector<SendCandidateRow> fetch_send_candidates(Database& db, int64_t host_id, int limit) {
  static const std::string sql = "SET STATEMENT optimizer_switch = 'exists_to_in=off' FOR " +
                                 kCandidateSelect + kNotHeldByHost + kCandidateOrder;
  return read_candidates(query(db, sql, ServerState::Unsent, host_id, limit));
}

std::vector<SendCandidateRow> fetch_send_candidates(Database& db, int limit) {
  return read_candidates(query(db, kCandidateSelect + kCandidateOrder, ServerState::Unsent, limit));
}

namespace {

// What a reply says of a result being sent (send_details_of reads them by position).
const std::string kSendDetailsList =
    "r.id, r.name, r.xml_doc_in, r.report_deadline, r.appid, w.id, w.name, w.xml_doc, w.rsc_fpops_est, "
    "w.rsc_fpops_bound, w.rsc_memory_bound, w.rsc_disk_bound ";
const std::string kSendDetailsColumns = "SELECT " + kSendDetailsList;

// The row's kSendDetailsList columns, the first of them at position `first`.
SendDetailsRow send_details_of(sql::ResultSet& rows, int first = 1) {
  const int c = first - 1;
  SendDetailsRow d;
  d.result_id = rows.getInt64(c + 1);
  d.name = rows.getString(c + 2);
  d.xml_doc_in = rows.getString(c + 3);
  d.report_deadline = rows.getInt64(c + 4);
  d.appid = rows.getInt64(c + 5);
  d.workunit_id = rows.getInt64(c + 6);
  d.wu_name = rows.getString(c + 7);
  d.wu_xml_doc = rows.getString(c + 8);
  d.rsc_fpops_est = rows.getDouble(c + 9);
  d.rsc_fpops_bound = rows.getDouble(c + 10);
  d.rsc_memory_bound = rows.getDouble(c + 11);
  d.rsc_disk_bound = rows.getDouble(c + 12);
  return d;
}

// The rows of one of fetch_queue_part's reads: the candidate's 10 columns, then the details'.
std::vector<QueuedResultRow> queued_rows(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<QueuedResultRow> out;
  while (rows->next()) out.push_back({candidate_of_columns(*rows), send_details_of(*rows, 11)});
  return out;
}

}  // namespace

std::vector<QueuedResultRow> fetch_queue_part(Database& db, const QueuePart& part, int64_t now, int limit) {
  // The candidate's columns, then what a reply needs of the result.
  static const std::string columns = kCandidateColumns + ", " + kSendDetailsList;
  static const std::string whole = columns + kCandidateFrom + kCandidateOrder;
  // The part's own rows: the workunit id is the last column of res_send, so the entries of
  // other parts are passed over in the index (index condition pushdown) without reading
  // their rows. FORCE INDEX: left to choose, the optimizer plans another index first and
  // then walks res_send for the ORDER BY as a range without the pushdown.
  static const std::string of_part = columns +
                                     "FROM result r FORCE INDEX (res_send) JOIN workunit w ON w.id = "
                                     "r.workunitid WHERE r.server_state = ? AND MOD(r.workunitid, ?) = ? " +
                                     kCandidateOrder;
  // The other parts' results reserved for a host now, from the few operands that hold a
  // reservation (operand_reserved), never by walking the queue: usually none.
  static const std::string reserved_elsewhere =
      columns +
      "FROM operand o STRAIGHT_JOIN result r ON r.workunitid = o.workunitid JOIN workunit w ON w.id = "
      "r.workunitid WHERE o.preferred_until > ? AND o.preferred_host <> 0 AND r.server_state = ? AND "
      "MOD(r.workunitid, ?) <> ? " +
      kCandidateOrder;
  if (part.count <= 1) return queued_rows(query(db, whole, ServerState::Unsent, limit));
  auto out = queued_rows(query(db, of_part, ServerState::Unsent, part.count, part.index, limit));
  auto reserved =
      queued_rows(query(db, reserved_elsewhere, now, ServerState::Unsent, part.count, part.index, limit));
  if (reserved.empty()) return out;
  auto send_order = [](const QueuedResultRow& a, const QueuedResultRow& b) {
    if (a.candidate.priority != b.candidate.priority) return a.candidate.priority > b.candidate.priority;
    return a.candidate.result_id < b.candidate.result_id;
  };
  std::vector<QueuedResultRow> merged;
  std::merge(std::make_move_iterator(out.begin()), std::make_move_iterator(out.end()),
             std::make_move_iterator(reserved.begin()), std::make_move_iterator(reserved.end()),
             std::back_inserter(merged), send_order);
  if (merged.size() > static_cast<size_t>(limit)) merged.resize(limit);
  return merged;
}

namespace {

const std::string kHostResultSelect =
    "SELECT r.id, r.workunitid, r.name, r.hostid, r.server_state, r.report_deadline, w.delay_bound, "
    "w.error_mask, w.canonical_resultid, r.outcome, w.assimilate_state "
    "FROM result r JOIN workunit w ON w.id = r.workunitid ";

// Columns by position: cheaper than by name in Connector/C++, and the SELECT is beside it.
HostResultRow read_host_result(sql::ResultSet& rows) {
  HostResultRow h;
  h.result_id = rows.getInt64(1);
  h.workunit_id = rows.getInt64(2);
  h.name = rows.getString(3);
  h.hostid = rows.getInt64(4);
  h.server_state = static_cast<ServerState>(rows.getInt(5));
  h.report_deadline = rows.getInt64(6);
  h.delay_bound = rows.getInt(7);
  h.wu_error_mask = rows.getInt(8);
  h.wu_canonical_resultid = rows.getInt64(9);
  h.outcome = static_cast<Outcome>(rows.getInt(10));
  h.wu_assimilate_state = static_cast<AssimilateState>(rows.getInt(11));
  return h;
}

}  // namespace

std::vector<HostResultRow> fetch_in_progress_results_at_host(Database& db, int64_t host_id) {
  auto rows = query(db, kHostResultSelect + "WHERE r.hostid = ? AND r.server_state = ?", host_id,
                    ServerState::InProgress);
  std::vector<HostResultRow> out;
  while (rows->next()) out.push_back(read_host_result(*rows));
  return out;
}

std::map<int64_t, std::vector<HostResultRow>> fetch_in_progress_results_at_hosts(
    Database& db, const std::vector<int64_t>& host_ids) {
  std::map<int64_t, std::vector<HostResultRow>> out;
  for (int64_t id : host_ids) out[id];
  if (host_ids.empty()) return out;
  // The list drives the join: each host's own rows by res_host (forced: with the list's
  // ids unknown to it, MariaDB chose every IN_PROGRESS row of the table by
  // res_state_outcome for each host, 1.6 ms instead of 0.05 with 210 in progress).
  auto rows = query(db,
                    "SELECT r.id, r.workunitid, r.name, r.hostid, r.server_state, r.report_deadline, "
                    "w.delay_bound, w.error_mask, w.canonical_resultid, r.outcome, w.assimilate_state FROM " +
                        kIdListTable +
                        " STRAIGHT_JOIN result r FORCE INDEX (res_host) ON r.hostid = wanted.wanted_id AND "
                        "r.server_state = ? "
                        "JOIN workunit w ON w.id = r.workunitid",
                    id_list_json(host_ids), ServerState::InProgress);
  while (rows->next()) {
    HostResultRow row = read_host_result(*rows);
    out[row.hostid].push_back(std::move(row));
  }
  return out;
}

std::optional<HostResultRow> fetch_host_result_by_name(Database& db, const std::string& name) {
  auto rows = query(db, kHostResultSelect + "WHERE r.name = ?", name);
  if (!rows->next()) return std::nullopt;
  return read_host_result(*rows);
}

std::vector<SendDetailsRow> fetch_send_details(Database& db, const std::vector<int64_t>& result_ids) {
  if (result_ids.empty()) return {};
  auto rows = query(db,
                    kSendDetailsColumns + "FROM " + kIdListTable +
                        " STRAIGHT_JOIN result r FORCE INDEX (PRIMARY) ON r.id = wanted.wanted_id "
                        "JOIN workunit w ON w.id = r.workunitid",
                    id_list_json(result_ids));
  std::map<int64_t, SendDetailsRow> by_id;
  while (rows->next()) {
    SendDetailsRow d = send_details_of(*rows);
    by_id.emplace(d.result_id, std::move(d));
  }
  std::vector<SendDetailsRow> out;
  for (int64_t id : result_ids) {
    auto it = by_id.find(id);
    if (it != by_id.end()) out.push_back(it->second);
  }
  return out;
}

}  // namespace tharsis
