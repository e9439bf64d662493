// Implementation of sched/lib/submit/submit_endpoint.h.
#include "sched/lib/submit/submit_endpoint.h"

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "lib/log.h"
#include "sched/lib/submit/submit_reply.h"

namespace tharsis {
namespace {

std::string project_dir() {
  if (const char* env = std::getenv("THARSIS_PROJECT_DIR")) return env;
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string();
}

HttpResponse xml(std::string body) { return HttpResponse{200, "text/xml", std::move(body)}; }

}  // namespace

int serve_submit_endpoint(const std::string& program, const std::string& kind,
                          const SubmitEndpointHandler& handler) {
  set_log_program(program);
  auto config = load_project_config(project_dir() + "/config.xml");
  if (!config.ok()) {
    log_error("cannot start: ", config.error());
    return serve_cgi_or_fastcgi(
        [](const HttpRequest&) { return xml(render_submit_error("", "project is misconfigured")); }, 1 << 16);
  }
  SubmitLimits limits = submit_limits(*config);
  std::unique_ptr<Database> db;
  return serve_cgi_or_fastcgi(
      [&](const HttpRequest& request) {
        if (request.body_too_large) {
          return xml(render_submit_error(
              "", "request too large: the limit is " + std::to_string(limits.max_request_bytes) + " bytes"));
        }
        if (request.body_truncated) return xml(render_submit_error("", "request cut short"));
        if (request.method != "POST") return xml(render_submit_error("", kind + " requests must be POSTed"));
        try {
          if (!db) db = Database::open(config->db);
          return xml(handler(request.body, *db, *config, limits));
        } catch (const std::exception& e) {
          db.reset();
          log_error("request failed: ", e.what());
          return xml(render_submit_error("", "server error; please try again later"));
        }
      },
      limits.max_request_bytes);
}

}  // namespace tharsis
