// server_status: the admins' status page as a CGI program (Apache runs it from cgi-bin/).
//   ?format=html (default) | json | prometheus
// A dead database is shown on the page (and as tharsis_db_up 0); the frame (config, read-only
// DB account, errors) is lib/web/status_cgi.h.
#include <cstdint>

#include "lib/log.h"
#include "lib/web/server_status_render.h"
#include "lib/web/server_status_source.h"
#include "lib/web/status_cgi.h"

using namespace tharsis;

namespace {

CgiResponse handle(const StatusRequest& request) {
  auto format = request.params.get_choice_or("format", {"html", "json", "prometheus"}, "html");
  if (!format) return cgi_error_response(400, format.error());
  const auto timeout = static_cast<int64_t>(
      config_number(request.config, "heartbeat_timeout", static_cast<double>(kDefaultHeartbeatTimeout)));
  const int64_t now = request.context.now;
  const ServerStatus status = load_server_status(request.db, now, timeout);
  if (!status.db_reachable) log_warning("server_status: database unreachable: ", status.db_error);

  CgiResponse response;
  if (*format == "json") {
    response.content_type = "application/json";
    response.body = render_server_status_json(status, now);
  } else if (*format == "prometheus") {
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = render_server_status_prometheus(status, now);
  } else {
    response.body = render_server_status_html(status, request.context);
  }
  return response;
}

}  // namespace

// No page cache: the costly count (results by state) is the census daemon's snapshot, so a
// view reads a few rows and caps its live queue counts (about 15 ms at 1M results), and the
// "N s ago" it prints stays true. <status_page_cache_seconds> can still turn a cache on.
int main() { return status_cgi_main("server_status", handle); }
