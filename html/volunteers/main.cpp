// volunteers: the volunteers' page as a CGI program: top users and hosts by total and by
// recent credit, then the user and host tables a page at a time.
//   ?users_after=ID, ?hosts_after=ID   start that table after this id (default: the start)
// Reads the DB read-only (lib/web/status_cgi.h).
#include <cstdint>

#include "db/volunteer_queries.h"
#include "lib/web/status_cgi.h"
#include "lib/web/volunteers_render.h"

using namespace tharsis;

namespace {

CgiResponse handle(const StatusRequest& request) {
  VolunteerQuery query;
  auto users_after = request.params.get_int_or("users_after", 0, 0, INT32_MAX);
  if (!users_after) return cgi_error_response(400, users_after.error());
  auto hosts_after = request.params.get_int_or("hosts_after", 0, 0, INT32_MAX);
  if (!hosts_after) return cgi_error_response(400, hosts_after.error());
  query.users_after = *users_after;
  query.hosts_after = *hosts_after;
  auto db = Database::open(request.db);
  CgiResponse response;
  response.body = render_volunteers_html(fetch_volunteer_tables(*db, query), request.context);
  return response;
}

}  // namespace

int main() { return status_cgi_main("volunteers", handle); }
