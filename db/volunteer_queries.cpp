// Implementation of db/volunteer_queries.h.
#include "db/volunteer_queries.h"

#include <string>
#include <vector>

#include "db/sql.h"

namespace tharsis {

namespace {

// The host count per user is a subquery on host_user, evaluated for the listed rows only.
const std::string kUserColumns =
    "SELECT u.id, u.name, u.total_credit, u.expavg_credit, "
    "(SELECT COUNT(*) FROM host h WHERE h.userid = u.id) FROM user u ";
const std::string kHostColumns =
    "SELECT h.id, h.domain_name, COALESCE(u.name, ''), h.platform_name, h.total_credit, h.expavg_credit, "
    "h.rpc_time FROM host h LEFT JOIN user u ON u.id = h.userid ";

double credit(sql::ResultSet& rows, int column) { return static_cast<double>(rows.getDouble(column)); }

template <class... Args>
std::vector<UserCreditRow> users(Database& db, const std::string& tail, const Args&... args) {
  std::vector<UserCreditRow> out;
  auto rows = query(db, kUserColumns + tail, args...);
  while (rows->next()) {
    out.push_back(
        {rows->getInt64(1), rows->getString(2), credit(*rows, 3), credit(*rows, 4), rows->getInt64(5)});
  }
  return out;
}

template <class... Args>
std::vector<HostCreditRow> hosts(Database& db, const std::string& tail, const Args&... args) {
  std::vector<HostCreditRow> out;
  auto rows = query(db, kHostColumns + tail, args...);
  while (rows->next()) {
    out.push_back({rows->getInt64(1), rows->getString(2), rows->getString(3), rows->getString(4),
                   credit(*rows, 5), credit(*rows, 6), rows->getInt64(7)});
  }
  return out;
}

// Fetches one row more than a page to tell whether another page follows.
template <class Row>
bool trim_page(std::vector<Row>& rows, int page_size) {
  if (rows.size() <= static_cast<size_t>(page_size)) return false;
  rows.resize(static_cast<size_t>(page_size));
  return true;
}

}  // namespace

VolunteerTables fetch_volunteer_tables(Database& db, const VolunteerQuery& q) {
  VolunteerTables t;
  t.user_count = query_int(db, "SELECT COUNT(*) FROM user");
  t.host_count = query_int(db, "SELECT COUNT(*) FROM host");
  t.top_users_by_total = users(db, "ORDER BY u.total_credit DESC, u.id DESC LIMIT ?", q.top_n);
  t.top_users_by_recent = users(db, "ORDER BY u.expavg_credit DESC, u.id DESC LIMIT ?", q.top_n);
  t.top_hosts_by_total = hosts(db, "ORDER BY h.total_credit DESC, h.id DESC LIMIT ?", q.top_n);
  t.top_hosts_by_recent = hosts(db, "ORDER BY h.expavg_credit DESC, h.id DESC LIMIT ?", q.top_n);
  t.users = users(db, "WHERE u.id > ? ORDER BY u.id LIMIT ?", q.users_after, q.page_size + 1);
  t.more_users = trim_page(t.users, q.page_size);
  t.hosts = hosts(db, "WHERE h.id > ? ORDER BY h.id LIMIT ?", q.hosts_after, q.page_size + 1);
  t.more_hosts = trim_page(t.hosts, q.page_size);
  return t;
}

}  // namespace tharsis
