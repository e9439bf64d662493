// Volunteers page (see volunteers_render.h).
#include "lib/web/volunteers_render.h"

#include <cstdio>

#include "lib/web/html_escape.h"

namespace tharsis {

namespace {

std::string credit(double value) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

std::string users_table(const std::vector<UserCreditRow>& users, const std::string& id) {
  std::string out = "<table id=\"" + id +
                    "\">\n<thead><tr><th class=\"num\">#</th><th class=\"num\">User ID</th><th>User</th>"
                    "<th class=\"num\">Total credit</th><th class=\"num\">Recent credit</th>"
                    "<th class=\"num\">Hosts</th></tr></thead>\n<tbody>\n";
  int rank = 0;
  for (const auto& user : users) {
    out += "<tr><td class=\"num\">" + std::to_string(++rank) + "</td><td class=\"num\">" +
           std::to_string(user.id) + "</td><td>" + html_escape(user.name) + "</td><td class=\"num\">" +
           credit(user.total_credit) + "</td><td class=\"num\">" + credit(user.recent_credit) +
           "</td><td class=\"num\">" + std::to_string(user.hosts) + "</td></tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

// Top lists are compact (side by side); the full table adds platform and last contact.
std::string hosts_table(const std::vector<HostCreditRow>& hosts, const std::string& id, bool full) {
  std::string out = "<table id=\"" + id +
                    "\">\n<thead><tr><th class=\"num\">#</th><th class=\"num\">Host ID</th><th>Name</th>"
                    "<th>Owner</th>" +
                    std::string(full ? "<th>Platform</th>" : "") +
                    "<th class=\"num\">Total credit</th><th class=\"num\">Recent credit</th>" +
                    (full ? "<th>Last contact</th>" : "") + "</tr></thead>\n<tbody>\n";
  int rank = 0;
  for (const auto& host : hosts) {
    out += "<tr><td class=\"num\">" + std::to_string(++rank) + "</td><td class=\"num\">" +
           std::to_string(host.id) + "</td><td>" + html_escape(host.name) + "</td><td>" +
           html_escape(host.owner) + "</td>" + (full ? "<td>" + html_escape(host.platform) + "</td>" : "") +
           "<td class=\"num\">" + credit(host.total_credit) + "</td><td class=\"num\">" +
           credit(host.recent_credit) + "</td>" +
           (full ? "<td>" + html_escape(format_utc_time(host.last_contact)) + "</td>" : "") + "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string next_link(const PageContext& context, bool more, const char* param, int64_t last_id) {
  if (!more) return "";
  const std::string href = context.base_url + std::string(page_program(PageId::Volunteers)) + "?" + param +
                           "=" + std::to_string(last_id);
  return "<p><a href=\"" + html_attr(href) + "\">Next page</a></p>\n";
}

}  // namespace

std::string render_volunteers_html(const VolunteerTables& t, const PageContext& context) {
  std::string body = "<p><span id=\"user-count\">" + std::to_string(t.user_count) +
                     "</span> volunteers with <span id=\"host-count\">" + std::to_string(t.host_count) +
                     "</span> hosts.</p>\n";
  body += "<div class=\"columns\"><section>\n<h2>Top users by total credit</h2>\n" +
          users_table(t.top_users_by_total, "top-users-total") +
          "</section>\n<section>\n<h2>Top users by recent credit</h2>\n" +
          users_table(t.top_users_by_recent, "top-users-recent") + "</section></div>\n";
  body += "<div class=\"columns\"><section>\n<h2>Top hosts by total credit</h2>\n" +
          hosts_table(t.top_hosts_by_total, "top-hosts-total", false) +
          "</section>\n<section>\n<h2>Top hosts by recent credit</h2>\n" +
          hosts_table(t.top_hosts_by_recent, "top-hosts-recent", false) + "</section></div>\n";
  body += "<section>\n<h2>All users</h2>\n" + users_table(t.users, "all-users") +
          next_link(context, t.more_users && !t.users.empty(), "users_after",
                    t.users.empty() ? 0 : t.users.back().id) +
          "</section>\n";
  body += "<section>\n<h2>All hosts</h2>\n" + hosts_table(t.hosts, "all-hosts", true) +
          next_link(context, t.more_hosts && !t.hosts.empty(), "hosts_after",
                    t.hosts.empty() ? 0 : t.hosts.back().id) +
          "</section>\n";
  return render_page(context, PageId::Volunteers, "Volunteers", body);
}

}  // namespace tharsis
