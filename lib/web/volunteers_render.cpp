// Volunteers page (see volunteers_render.h).
#include "lib/web/volunteers_render.h"

#include <algorithm>
#include <cstdio>

#include "lib/web/html_escape.h"

namespace tharsis {

namespace {

template <class Row>
std::vector<Row> top_rows(const std::vector<Row>& rows, int n, bool recent) {
  std::vector<Row> sorted = rows;
  std::sort(sorted.begin(), sorted.end(), [recent](const Row& a, const Row& b) {
    const double ca = recent ? a.recent_credit : a.total_credit;
    const double cb = recent ? b.recent_credit : b.total_credit;
    if (ca != cb) return ca > cb;
    return a.id < b.id;
  });
  if (n >= 0 && sorted.size() > static_cast<size_t>(n)) sorted.resize(static_cast<size_t>(n));
  return sorted;
}

std::string credit(double value) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

std::string users_table(const std::vector<UserCreditRow>& users) {
  std::string out = "<table>\n<thead><tr><th class=\"num\">#</th><th>User</th><th>Country</th>"
                    "<th class=\"num\">Total credit</th><th class=\"num\">Recent credit</th>"
                    "<th class=\"num\">Hosts</th></tr></thead>\n<tbody>\n";
  int rank = 0;
  for (const auto& user : users) {
    out += "<tr><td class=\"num\">" + std::to_string(++rank) + "</td><td>" + html_escape(user.name) +
           "</td><td>" + html_escape(user.country) + "</td><td class=\"num\">" + credit(user.total_credit) +
           "</td><td class=\"num\">" + credit(user.recent_credit) + "</td><td class=\"num\">" +
           std::to_string(user.hosts) + "</td></tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string hosts_table(const std::vector<HostCreditRow>& hosts) {
  std::string out = "<table>\n<thead><tr><th class=\"num\">#</th><th class=\"num\">Host ID</th><th>Name</th>"
                    "<th>Owner</th><th>Platform</th><th class=\"num\">Total credit</th>"
                    "<th class=\"num\">Recent credit</th><th>Last contact</th></tr></thead>\n<tbody>\n";
  int rank = 0;
  for (const auto& host : hosts) {
    out += "<tr><td class=\"num\">" + std::to_string(++rank) + "</td><td class=\"num\">" +
           std::to_string(host.id) + "</td><td>" + html_escape(host.name) + "</td><td>" +
           html_escape(host.owner) + "</td><td>" + html_escape(host.platform) + "</td><td class=\"num\">" +
           credit(host.total_credit) + "</td><td class=\"num\">" + credit(host.recent_credit) + "</td><td>" +
           html_escape(format_utc_time(host.last_contact)) + "</td></tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

}  // namespace

std::vector<UserCreditRow> top_users(const std::vector<UserCreditRow>& users, int n, bool recent) {
  return top_rows(users, n, recent);
}

std::vector<HostCreditRow> top_hosts(const std::vector<HostCreditRow>& hosts, int n, bool recent) {
  return top_rows(hosts, n, recent);
}

std::string render_volunteers_html(const VolunteerTables& tables, const PageContext& context) {
  const int n = std::max(1, tables.top_n);
  std::string body = "<p>" + std::to_string(tables.users.size()) + " volunteers with " +
                     std::to_string(tables.hosts.size()) + " hosts.</p>\n";
  body += "<div class=\"columns\"><section>\n<h2>Top users by total credit</h2>\n" +
          users_table(top_users(tables.users, n, false)) + "</section>\n<section>\n<h2>Top users by recent credit</h2>\n" +
          users_table(top_users(tables.users, n, true)) + "</section></div>\n";
  body += "<div class=\"columns\"><section>\n<h2>Top hosts by total credit</h2>\n" +
          hosts_table(top_hosts(tables.hosts, n, false)) + "</section>\n<section>\n<h2>Top hosts by recent credit</h2>\n" +
          hosts_table(top_hosts(tables.hosts, n, true)) + "</section></div>\n";
  body += "<section>\n<h2>All users</h2>\n" + users_table(top_users(tables.users, -1, false)) + "</section>\n";
  body += "<section>\n<h2>All hosts</h2>\n" + hosts_table(top_hosts(tables.hosts, -1, false)) + "</section>\n";
  return render_page(context, PageId::Volunteers, "Volunteers", body);
}

}  // namespace tharsis
