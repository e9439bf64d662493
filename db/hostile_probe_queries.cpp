// Implementation of db/hostile_probe_queries.h.
#include "db/hostile_probe_queries.h"

#include "db/sql.h"
#include "db/states.h"

namespace tharsis {

namespace {

ResultReportFacts read_facts(sql::ResultSet& rows) {
  return {rows.getString(1), rows.getInt64(2), rows.getInt64(3), static_cast<double>(rows.getDouble(4))};
}

}  // namespace

std::optional<ResultReportFacts> fetch_result_report_facts(Database& db, const std::string& name) {
  auto rows = query(db, "SELECT name, hostid, received_time, cpu_time FROM result WHERE name = ?", name);
  if (!rows->next()) return std::nullopt;
  return read_facts(*rows);
}

std::vector<ReportedResultOfHost> fetch_reported_results_of_hosts(Database& db,
                                                                  const std::string& skip_host_cpid,
                                                                  int limit) {
  auto rows = query(db,
                    "SELECT r.name, r.hostid, r.received_time, r.cpu_time, u.authenticator, h.host_cpid, "
                    "h.rpc_seqno, h.domain_name FROM result r JOIN host h ON h.id = r.hostid "
                    "JOIN user u ON u.id = h.userid "
                    "WHERE r.server_state = ? AND r.received_time > 0 AND h.host_cpid <> ? "
                    "ORDER BY r.id DESC LIMIT ?",
                    ServerState::Over, skip_host_cpid, limit);
  std::vector<ReportedResultOfHost> out;
  while (rows->next()) {
    out.push_back(
        {read_facts(*rows), rows->getString(5), rows->getString(6), rows->getInt(7), rows->getString(8)});
  }
  return out;
}

std::vector<ResultReportFacts> fetch_sent_results_of_hosts(Database& db, const std::string& skip_host_cpid,
                                                           int limit) {
  auto rows = query(db,
                    "SELECT r.name, r.hostid, r.received_time, r.cpu_time FROM result r "
                    "JOIN host h ON h.id = r.hostid WHERE h.host_cpid <> ? "
                    "ORDER BY r.server_state = ? DESC, r.id DESC LIMIT ?",
                    skip_host_cpid, ServerState::InProgress, limit);
  std::vector<ResultReportFacts> out;
  while (rows->next()) out.push_back(read_facts(*rows));
  return out;
}

std::vector<std::string> fetch_results_with_outputs_on_server(Database& db, int limit) {
  auto rows =
      query(db,
            "SELECT name FROM result "
            "WHERE (server_state = ? AND outcome = ? AND file_delete_state = ?) OR server_state = ? "
            "ORDER BY id DESC LIMIT ?",
            ServerState::Over, Outcome::Success, FileDeleteState::Init, ServerState::InProgress, limit);
  std::vector<std::string> out;
  while (rows->next()) out.push_back(rows->getString(1));
  return out;
}

}  // namespace tharsis
