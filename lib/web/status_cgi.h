// The frame every status-page CGI program shares: check the method, parse QUERY_STRING,
// read the project's config.xml ($THARSIS_CONFIG, else ../config.xml: cgi-bin/ sits in the
// project directory, as in BOINC), pick the read-only database account, build the page
// context, call the page's handler, and always print a well-formed CGI response (bad
// parameters 400, database unreachable 503, anything unexpected 500 with the details in the server log only).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "lib/config/db_config.h"
#include "lib/config/project_config.h"
#include "lib/web/cgi_request.h"
#include "lib/web/page.h"

namespace tharsis {

// The account the pages read the database with: <web_db_user>/<web_db_passwd> from
// config.xml when set (make_project creates that user with SELECT only), else the
// project's own <db_user> (a project made with --no_db has no read-only user).
DbConfig status_page_db(const ProjectConfig& config);

// What the status pages read from: BOINC's replica (<replica_db_host>, ..., see
// replica_db_config) when config.xml names one, else the primary; as status_page_db's
// user either way (<web_db_user> wins over <replica_db_user>). Pages only: the upload
// handler, which decides on current rows, keeps status_page_db.
DbConfig status_page_read_db(const ProjectConfig& config);

// A numeric knob from config.xml's <config> (ProjectConfig::other); `fallback` when absent
// or not a number (the latter logged).
double config_number(const ProjectConfig& config, const std::string& name, double fallback);

struct StatusRequest {
  QueryParams params;
  ProjectConfig config;
  DbConfig db;          // status_page_read_db(config)
  PageContext context;  // project name, now, links into cgi-bin/, the stylesheet's URL
};

using StatusHandler = std::function<CgiResponse(const StatusRequest&)>;

// Runs one request for `program` (its name prefixes log lines) at time `now`; returns the
// response text to print. A page rendered less than cache_seconds ago for the same query
// string is served again (lib/web/page_cache.h, under the project's tmp/status_pages/);
// <status_page_cache_seconds> in config.xml overrides cache_seconds for every page (0: off).
std::string run_status_cgi(std::string_view program, int64_t now, const StatusHandler& handler,
                           int64_t cache_seconds = 0);

// The largest request body a page accepts: the pages take none, but BOINC's Python client
// posts a small form to server_status.php. A larger one is answered 413.
inline constexpr int64_t kMaxStatusRequestBody = 64 * 1024;

// main() of a page: reads the request body to its end and drops it, a chunk at a time
// (Apache's mod_cgid writes a POST's body to the program's stdin, and a program that exits
// without reading it can break that write: Apache then closes the connection with no
// answer at all), then run_status_cgi at the current time, printed to stdout. Returns 0.
int status_cgi_main(std::string_view program, const StatusHandler& handler, int64_t cache_seconds = 0);

}  // namespace tharsis
