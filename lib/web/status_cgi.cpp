// Shared CGI frame of the status pages (see status_cgi.h).
#include "lib/web/status_cgi.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <iostream>

#include "db/database.h"
#include "lib/log.h"
#include "lib/web/page_cache.h"

namespace tharsis {

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::string with_slash(std::string url) {
  if (!url.empty() && url.back() != '/') url += '/';
  return url;
}

std::string other_or(const ProjectConfig& config, const std::string& name) {
  auto it = config.other.find(name);
  return it == config.other.end() ? std::string() : it->second;
}

// CONTENT_LENGTH as a number: 0 when absent, -1 when not a length.
int64_t request_body_length() {
  const std::string text = env_or("CONTENT_LENGTH", "0");
  int64_t length = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), length);
  return error == std::errc() && end == text.data() + text.size() && length >= 0 ? length : -1;
}

CgiResponse handle(std::string_view program, int64_t now, const StatusHandler& handler,
                   int64_t cache_seconds) {
  const std::string method = env_or("REQUEST_METHOD", "GET");
  // POST too: BOINC's Python submit client posts its server_status.php?counts=1 query. The
  // pages are read-only; a body is read (status_cgi_main) and dropped.
  if (method != "GET" && method != "HEAD" && method != "POST")
    return cgi_error_response(405, "only GET is supported");
  const int64_t body = request_body_length();
  if (body < 0) return cgi_error_response(400, "CONTENT_LENGTH is not a length");
  if (body > kMaxStatusRequestBody) return cgi_error_response(413, "the status pages take no request body");
  auto params = QueryParams::parse(env_or("QUERY_STRING", ""));
  if (!params) return cgi_error_response(400, params.error());
  auto config = load_project_config(env_or("THARSIS_CONFIG", "../config.xml"));
  if (!config) {
    log_error(program, ": ", config.error());
    return cgi_error_response(500, "the project configuration could not be read");
  }
  StatusRequest request{std::move(*params), std::move(*config), {}, {}};
  request.db = status_page_read_db(request.config);
  const ProjectConfig& c = request.config;
  request.context.project_name = c.long_name.empty() ? c.name : c.long_name;
  request.context.now = now;
  request.context.base_url = with_slash(c.cgi_url);
  // The stylesheet is static: served from the project's web root, not from cgi-bin/.
  request.context.stylesheet = with_slash(c.master_url) + "tharsis.css";
  const auto ttl =
      static_cast<int64_t>(config_number(c, "status_page_cache_seconds", static_cast<double>(cache_seconds)));
  if (ttl <= 0) return handler(request);
  const std::string cached =
      page_cache_path(c.tmp_dir + "/status_pages", program, env_or("QUERY_STRING", ""));
  if (auto hit = read_cached_page(cached, now, ttl)) return *hit;
  CgiResponse response = handler(request);
  store_cached_page(cached, response);
  return response;
}

}  // namespace

DbConfig status_page_db(const ProjectConfig& config) {
  DbConfig db = config.db;
  const std::string user = other_or(config, "web_db_user");
  if (!user.empty()) {
    db.user = user;
    db.password = other_or(config, "web_db_passwd");
  }
  return db;
}

DbConfig status_page_read_db(const ProjectConfig& config) {
  ProjectConfig pages = config;
  pages.db = replica_db_config(config);
  return status_page_db(pages);
}

double config_number(const ProjectConfig& config, const std::string& name, double fallback) {
  const std::string text = other_or(config, name);
  if (text.empty()) return fallback;
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  log_warning("config.xml: <", name, "> expected a number, found '", text, "'");
  return fallback;
}

std::string run_status_cgi(std::string_view program, int64_t now, const StatusHandler& handler,
                           int64_t cache_seconds) {
  CgiResponse response;
  try {
    response = handle(program, now, handler, cache_seconds);
  } catch (const DbError& e) {
    log_error(program, ": database: ", e.what());
    response = cgi_error_response(503, "the project database is unavailable; see the server log");
  } catch (const std::exception& e) {
    log_error(program, ": unexpected failure: ", e.what());
    response = cgi_error_response(500, "internal error; see the server log");
  }
  return render_cgi_response(response);
}

int status_cgi_main(std::string_view program, const StatusHandler& handler, int64_t cache_seconds) {
  // Read to the end, a chunk at a time, even a body the page refuses: see the header.
  char chunk[16384];
  for (int64_t left = request_body_length(); left > 0 && std::cin;) {
    std::cin.read(chunk, static_cast<std::streamsize>(std::min<int64_t>(left, sizeof chunk)));
    left -= std::cin.gcount();
  }
  std::cout << run_status_cgi(program, static_cast<int64_t>(std::time(nullptr)), handler, cache_seconds)
            << std::flush;
  return 0;
}

}  // namespace tharsis
