// server_status: the admins' status page as a CGI program (Apache runs it from cgi-bin/).
//   ?format=html (default) | json | prometheus
// Reads the project's config.xml ($THARSIS_CONFIG, else ../config.xml: cgi-bin/ sits in
// the project directory, as in BOINC), reads the DB read-only, renders, and always answers
// with a well-formed response: a dead database is shown on the page (and as
// tharsis_db_up 0), bad parameters get 400, anything unexpected 500.
#include <cstdlib>
#include <ctime>
#include <exception>
#include <iostream>
#include <string>

#include "lib/log.h"
#include "lib/project_config.h"
#include "lib/web/cgi_request.h"
#include "lib/web/page.h"
#include "lib/web/server_status_render.h"
#include "lib/web/server_status_source.h"

using namespace tharsis;

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::string with_slash(std::string url) {
  if (!url.empty() && url.back() != '/') url += '/';
  return url;
}

CgiResponse handle(int64_t now) {
  const std::string method = env_or("REQUEST_METHOD", "GET");
  if (method != "GET" && method != "HEAD") return cgi_error_response(405, "only GET is supported");
  auto params = QueryParams::parse(env_or("QUERY_STRING", ""));
  if (!params) return cgi_error_response(400, params.error());
  auto format = params->get_choice_or("format", {"html", "json", "prometheus"}, "html");
  if (!format) return cgi_error_response(400, format.error());

  auto config = load_project_config(env_or("THARSIS_CONFIG", "../config.xml"));
  if (!config) {
    log_error("server_status: ", config.error());
    return cgi_error_response(500, "the project configuration could not be read");
  }
  int64_t timeout = kDefaultHeartbeatTimeout;
  if (auto it = config->other.find("heartbeat_timeout"); it != config->other.end()) {
    try {
      timeout = std::stoll(it->second);
    } catch (const std::exception&) {
      log_warning("server_status: <heartbeat_timeout> expected seconds, found '", it->second, "'");
    }
  }
  const ServerStatus status = load_server_status(config->db, now, timeout);
  if (!status.db_reachable) log_warning("server_status: database unreachable: ", status.db_error);

  CgiResponse response;
  if (*format == "json") {
    response.content_type = "application/json";
    response.body = render_server_status_json(status, now);
  } else if (*format == "prometheus") {
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = render_server_status_prometheus(status, now);
  } else {
    PageContext context;
    context.project_name = config->long_name.empty() ? config->name : config->long_name;
    context.now = now;
    context.base_url = with_slash(config->cgi_url);
    // The stylesheet is static: served from the project's web root, not from cgi-bin/.
    context.stylesheet = with_slash(config->master_url) + "tharsis.css";
    response.body = render_server_status_html(status, context);
  }
  return response;
}

}  // namespace

int main() {
  CgiResponse response;
  try {
    response = handle(static_cast<int64_t>(std::time(nullptr)));
  } catch (const std::exception& e) {
    log_error("server_status: unexpected failure: ", e.what());
    response = cgi_error_response(500, "internal error; see the server log");
  }
  std::cout << render_cgi_response(response) << std::flush;
  return 0;
}
