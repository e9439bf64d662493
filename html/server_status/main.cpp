// server_status: the admins' status page as a CGI program (Apache runs it from cgi-bin/).
//   ?format=html (default) | json | prometheus
//   ?counts=1: BOINC's uncached job counts for remote submission systems (db/job_counts.h),
//   as <job_counts> XML; reached as <master_url>server_status.php?counts=1 through an alias.
// A dead database is shown on the page (and as tharsis_db_up 0); the frame (config, read-only
// DB account, errors) is lib/web/status_cgi.h.
#include <cstdint>
#include <string>
#include <utility>

#include "db/database.h"
#include "db/job_counts.h"
#include "lib/log.h"
#include "lib/web/server_status_render.h"
#include "lib/web/server_status_source.h"
#include "lib/web/status_cgi.h"

using namespace tharsis;

namespace {

// BOINC's <job_counts> (html/user/server_status.php's show_counts_xml).
CgiResponse job_counts_response(const StatusRequest& request) {
  CgiResponse response;
  response.content_type = "text/xml";
  try {
    auto db = Database::open(request.db);
    JobCounts c = count_jobs(*db);
    response.body = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<job_counts>\n";
    for (auto [name, value] : {std::pair{"results_ready_to_send", c.results_ready_to_send},
                               std::pair{"results_in_progress", c.results_in_progress},
                               std::pair{"results_need_file_delete", c.results_need_file_delete},
                               std::pair{"wus_need_validate", c.wus_need_validate},
                               std::pair{"wus_need_assimilate", c.wus_need_assimilate},
                               std::pair{"wus_need_file_delete", c.wus_need_file_delete}}) {
      response.body += std::string("<") + name + ">" + std::to_string(value) + "</" + name + ">\n";
    }
    response.body += "</job_counts>\n";
  } catch (const std::exception& e) {
    log_warning("server_status counts: ", e.what());
    return cgi_error_response(503, "database unreachable");
  }
  return response;
}

CgiResponse handle(const StatusRequest& request) {
  auto counts = request.params.get_int_or("counts", 0, 0, 1);
  if (!counts) return cgi_error_response(400, counts.error());
  if (*counts == 1) return job_counts_response(request);
  auto format = request.params.get_choice_or("format", {"html", "json", "prometheus"}, "html");
  if (!format) return cgi_error_response(400, format.error());
  const auto timeout = static_cast<int64_t>(
      config_number(request.config, "heartbeat_timeout", static_cast<double>(kDefaultHeartbeatTimeout)));
  const int64_t now = request.context.now;
  const ServerStatus status = load_server_status(request.db, now, timeout, has_replica_db(request.config));
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
