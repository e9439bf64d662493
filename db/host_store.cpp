// Implementation of db/host_store.h.
#include "db/host_store.h"

#include "db/id_list.h"
#include "db/reportable_result.h"
#include "db/sql.h"
#include "db/user_columns.h"

namespace tharsis {
namespace {

const std::string kColumns =
    "id, create_time, userid, rpc_seqno, rpc_time, total_credit, expavg_credit, expavg_time, "
    "domain_name, host_cpid, platform_name, p_ncpus, p_vendor, p_model, p_fpops, p_iops, "
    "os_name, os_version, m_nbytes, m_swap, d_total, d_free, nresults_today, nresults_day, "
    "max_results_day, error_rate";

HostRow read_row(sql::ResultSet& r) {
  HostRow h;
  h.id = r.getInt64("id");
  h.create_time = r.getInt64("create_time");
  h.userid = r.getInt64("userid");
  h.rpc_seqno = r.getInt("rpc_seqno");
  h.rpc_time = r.getInt64("rpc_time");
  h.total_credit = r.getDouble("total_credit");
  h.expavg_credit = r.getDouble("expavg_credit");
  h.expavg_time = r.getDouble("expavg_time");
  h.domain_name = r.getString("domain_name");
  h.host_cpid = r.getString("host_cpid");
  h.platform_name = r.getString("platform_name");
  h.p_ncpus = r.getInt("p_ncpus");
  h.p_vendor = r.getString("p_vendor");
  h.p_model = r.getString("p_model");
  h.p_fpops = r.getDouble("p_fpops");
  h.p_iops = r.getDouble("p_iops");
  h.os_name = r.getString("os_name");
  h.os_version = r.getString("os_version");
  h.m_nbytes = r.getDouble("m_nbytes");
  h.m_swap = r.getDouble("m_swap");
  h.d_total = r.getDouble("d_total");
  h.d_free = r.getDouble("d_free");
  h.nresults_today = r.getInt("nresults_today");
  h.nresults_day = r.getInt64("nresults_day");
  h.max_results_day = r.getInt("max_results_day");
  h.error_rate = r.getDouble("error_rate");
  return h;
}

std::optional<HostRow> read_one(std::unique_ptr<sql::ResultSet> rows) {
  if (!rows->next()) return std::nullopt;
  return read_row(*rows);
}

constexpr int64_t kSecondsPerDay = 86400;

// Adds ? results to today's count (? = today, twice), a fresh count on a new day.
// Assignments run left to right in MariaDB: nresults_today must read the old day.
const std::string kCountSent =
    "nresults_today = IF(nresults_day = ?, nresults_today, 0) + ?, nresults_day = ?";

}  // namespace

int64_t insert_host(Database& db, const HostRow& h) {
  exec(db,
       "INSERT INTO host (create_time, userid, rpc_seqno, rpc_time, total_credit, "
       "expavg_credit, expavg_time, domain_name, host_cpid, platform_name, p_ncpus, p_vendor, "
       "p_model, p_fpops, p_iops, os_name, os_version, m_nbytes, m_swap, d_total, d_free, "
       "nresults_today, nresults_day, max_results_day, error_rate) "
       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
       h.create_time, h.userid, h.rpc_seqno, h.rpc_time, h.total_credit, h.expavg_credit, h.expavg_time,
       h.domain_name, h.host_cpid, h.platform_name, h.p_ncpus, h.p_vendor, h.p_model, h.p_fpops, h.p_iops,
       h.os_name, h.os_version, h.m_nbytes, h.m_swap, h.d_total, h.d_free, h.nresults_today, h.nresults_day,
       h.max_results_day, h.error_rate);
  return last_insert_id(db);
}

std::optional<HostRow> fetch_host(Database& db, int64_t id, bool for_update) {
  return read_one(
      query(db, "SELECT " + kColumns + " FROM host WHERE id = ?" + (for_update ? " FOR UPDATE" : ""), id));
}

namespace {

// "t.a AS pa, t.b AS pb, ..." for a column list "a, b, ...".
std::string qualified(const std::string& list, const std::string& table, const std::string& label_prefix) {
  std::string out;
  for (size_t start = 0; start < list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string column = list.substr(start, comma - start);
    out += (out.empty() ? "" : ", ") + table + "." + column +
           (label_prefix.empty() ? "" : " AS " + label_prefix + column);
    start = list.find_first_not_of(' ', comma + 1);
    if (start == std::string::npos) break;
  }
  return out;
}

// After the host row (`host_from`, naming it h: a primary-key read, first), for each name
// its result's workunit by its primary key (eq_ref), NULL where none takes a report; a row
// per name (one, NULL, for none). The list's placeholder, then the states'
// (bind_reportable_states).
std::string with_host(const std::string& host_from) {
  return ", wanted.wanted_name AS locked_name, w.id AS locked_workunit FROM " + host_from + " LEFT JOIN " +
         kNameListTable + " ON h.id IS NOT NULL LEFT JOIN workunit w ON w.id = " +
         reportable_result_workunit("x.name = wanted.wanted_name", "h.id");
}

void read_locks(sql::ResultSet& rows, LockedHost& out) {
  if (rows.isNull("id")) return;  // no host row
  if (!out.host) out.host = read_row(rows);
  if (!rows.isNull("locked_workunit"))
    out.reports.emplace(rows.getString("locked_name"), rows.getInt64("locked_workunit"));
}

}  // namespace

AccountAndHost lock_account_host_and_reported_workunits(Database& db, const std::string& authenticator,
                                                        int64_t id, const std::vector<std::string>& names) {
  // The account first, by its unique authenticator, in a derived table the FOR UPDATE
  // does not reach (a consistent read); the host joined to it, so an unknown account
  // reads and locks no host.
  static const std::string sql =
      "SELECT " + qualified(kUserColumns, "u", "u_") + ", " + qualified(kColumns, "h", "") +
      with_host("(SELECT " + kUserColumns +
                " FROM user WHERE authenticator = ?) u LEFT JOIN host h ON h.id = ?") +
      " FOR UPDATE";
  auto rows = SqlAccess::run(db, sql, [&](sql::PreparedStatement& st) {
    sql_bind::bind_all(st, 1, authenticator, id, name_list_json(names));
    bind_reportable_states(st, 4);
    return std::unique_ptr<sql::ResultSet>(st.executeQuery());
  });
  AccountAndHost out;
  while (rows->next()) {
    if (!out.user) out.user = read_user_row(*rows, "u_");
    read_locks(*rows, out.locked);
  }
  return out;
}

std::vector<AccountAndHost> lock_accounts_hosts_and_reported_workunits(
    Database& db, const std::vector<AccountHostQuery>& queries) {
  std::vector<AccountAndHost> out(queries.size());
  if (queries.empty()) return out;
  // As the one-request statement: each account by its authenticator in a derived table
  // kept apart (derived_merge off), so FOR UPDATE does not reach the user rows; a row per
  // report name (NESTED PATH: one, NULL, for none), its host and workunit joined to it.
  static const std::string sql =
      "SET STATEMENT optimizer_switch = 'derived_merge=off' FOR SELECT a.*, " + qualified(kColumns, "h", "") +
      ", a.wanted_name AS locked_name, w.id AS locked_workunit FROM (SELECT q.request_index, q.named_host, "
      "q.wanted_name, " +
      qualified(kUserColumns, "u", "u_") +
      " FROM JSON_TABLE(?, '$[*]' COLUMNS (request_index INT PATH '$[0]', authenticator VARCHAR(254) PATH "
      "'$[1]', named_host BIGINT PATH '$[2]', NESTED PATH '$[3][*]' COLUMNS (wanted_name VARCHAR(254) PATH "
      "'$'))) q STRAIGHT_JOIN user u ON u.authenticator = q.authenticator) a "
      "LEFT JOIN host h ON h.id = a.named_host LEFT JOIN workunit w ON w.id = " +
      reportable_result_workunit("x.name = a.wanted_name", "h.id") + " FOR UPDATE";
  std::string json = "[";
  for (size_t i = 0; i < queries.size(); ++i) {
    json += (i ? ",[" : "[") + std::to_string(i) + "," + json_string(queries[i].authenticator) + "," +
            std::to_string(queries[i].host_id) + "," + name_list_json(queries[i].report_names) + "]";
  }
  json += "]";
  auto rows = SqlAccess::run(db, sql, [&](sql::PreparedStatement& st) {
    sql_bind::bind(st, 1, json);
    bind_reportable_states(st, 2);
    return std::unique_ptr<sql::ResultSet>(st.executeQuery());
  });
  while (rows->next()) {
    int64_t index = rows->getInt64("request_index");
    if (index < 0 || index >= static_cast<int64_t>(out.size())) continue;
    AccountAndHost& answer = out[static_cast<size_t>(index)];
    if (!answer.user) answer.user = read_user_row(*rows, "u_");
    read_locks(*rows, answer.locked);
  }
  return out;
}

std::optional<HostRow> fetch_host_by_cpid(Database& db, int64_t userid, const std::string& host_cpid,
                                          bool for_update) {
  // Served by the host_user (userid, host_cpid) index: a key lookup however many hosts
  // the user has (a new cpid used to read them all).
  return read_one(query(db,
                        "SELECT " + kColumns +
                            " FROM host WHERE userid = ? AND host_cpid = ? ORDER BY id DESC LIMIT 1" +
                            (for_update ? " FOR UPDATE" : ""),
                        userid, host_cpid));
}

namespace {

// One statement for update_host and update_hosts: the columns an RPC writes, each value
// chosen by id when there are several rows (CASE; bound parameters, so the client's bytes
// go in as they are), a plain value for one. rpc_seqno only moves forward (two RPCs of one
// host write in either order), except to 0: a host id the reply announces starts the
// client's count again.
struct RowWrite {
  const HostRow* row;
  int results_sent;
};
void write_host_rows(Database& db, const std::vector<RowWrite>& writes, int64_t now) {
  if (writes.empty()) return;
  const size_t n = writes.size();
  const bool one = n == 1;
  const int64_t today = now / kSecondsPerDay;
  static const char* const kColumnsWritten[] = {
      "userid",   "rpc_time", "domain_name", "host_cpid", "platform_name",  "p_ncpus",
      "p_vendor", "p_model",  "p_fpops",     "p_iops",    "os_name",        "os_version",
      "m_nbytes", "m_swap",   "d_total",     "d_free",    "max_results_day"};
  auto by_id = [n, one](const std::string& value) {
    if (one) return value;
    std::string text = "CASE id";
    for (size_t i = 0; i < n; ++i) text += " WHEN ? THEN " + value;
    return text + " END";
  };
  std::string sql = "UPDATE host SET rpc_seqno = " + by_id("IF(? = 0, 0, GREATEST(rpc_seqno, ?))");
  for (const char* column : kColumnsWritten) sql += std::string(", ") + column + " = " + by_id("?");
  sql += ", nresults_today = IF(nresults_day = ?, nresults_today, 0) + " + by_id("?") +
         ", nresults_day = ? WHERE id IN (?";
  for (size_t i = 1; i < n; ++i) sql += ", ?";
  sql += ")";
  exec_bound(db, sql, [&](sql::PreparedStatement& st) {
    int i = 1;
    auto each = [&](auto value_of) {
      for (const RowWrite& w : writes) {
        if (!one) sql_bind::bind(st, i++, w.row->id);
        sql_bind::bind(st, i++, value_of(*w.row));
      }
    };
    for (const RowWrite& w : writes) {  // the IF's two placeholders
      if (!one) sql_bind::bind(st, i++, w.row->id);
      sql_bind::bind_all(st, i, w.row->rpc_seqno, w.row->rpc_seqno);
      i += 2;
    }
    each([](const HostRow& h) { return h.userid; });
    each([](const HostRow& h) { return h.rpc_time; });
    each([](const HostRow& h) -> const std::string& { return h.domain_name; });
    each([](const HostRow& h) -> const std::string& { return h.host_cpid; });
    each([](const HostRow& h) -> const std::string& { return h.platform_name; });
    each([](const HostRow& h) { return h.p_ncpus; });
    each([](const HostRow& h) -> const std::string& { return h.p_vendor; });
    each([](const HostRow& h) -> const std::string& { return h.p_model; });
    each([](const HostRow& h) { return h.p_fpops; });
    each([](const HostRow& h) { return h.p_iops; });
    each([](const HostRow& h) -> const std::string& { return h.os_name; });
    each([](const HostRow& h) -> const std::string& { return h.os_version; });
    each([](const HostRow& h) { return h.m_nbytes; });
    each([](const HostRow& h) { return h.m_swap; });
    each([](const HostRow& h) { return h.d_total; });
    each([](const HostRow& h) { return h.d_free; });
    each([](const HostRow& h) { return h.max_results_day; });
    sql_bind::bind(st, i++, today);
    for (const RowWrite& w : writes) {
      if (!one) sql_bind::bind(st, i++, w.row->id);
      sql_bind::bind(st, i++, w.results_sent);
    }
    sql_bind::bind(st, i++, today);
    for (const RowWrite& w : writes) sql_bind::bind(st, i++, w.row->id);
  });
}

}  // namespace

void update_host(Database& db, const HostRow& h, int64_t now, int results_sent) {
  write_host_rows(db, {{&h, results_sent}}, now);
}

void update_hosts(Database& db, const std::vector<HostWrite>& writes, int64_t now) {
  std::vector<RowWrite> rows;
  for (const HostWrite& w : writes) rows.push_back({&w.row, w.results_sent});
  write_host_rows(db, rows, now);
}

void add_results_sent(Database& db, int64_t host_id, int64_t now, int n) {
  int64_t today = now / kSecondsPerDay;
  exec(db, "UPDATE host SET " + kCountSent + " WHERE id = ?", today, n, today, host_id);
}

int count_results_sent(Database& db, int64_t host_id, int64_t now, int n) {
  add_results_sent(db, host_id, now, n);
  return static_cast<int>(query_int(db, "SELECT nresults_today FROM host WHERE id = ?", host_id));
}

void set_max_results_day(Database& db, int64_t host_id, int max_results_day) {
  exec(db, "UPDATE host SET max_results_day = ? WHERE id = ?", max_results_day, host_id);
}

void touch_host_rpc(Database& db, int64_t host_id, int64_t now) {
  exec(db, "UPDATE host SET rpc_time = ?, rpc_seqno = rpc_seqno + 1 WHERE id = ?", now, host_id);
}

std::vector<int64_t> fetch_host_ids_active_since(Database& db, int64_t since) {
  auto rows = query(db, "SELECT id FROM host WHERE rpc_time >= ? ORDER BY id", since);
  std::vector<int64_t> ids;
  while (rows->next()) ids.push_back(rows->getInt64(1));
  return ids;
}

}  // namespace tharsis
