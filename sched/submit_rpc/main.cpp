// submit_rpc: BOINC's remote job submission RPCs (submit_rpc_handler.php's protocol) as a
// CGI or FastCGI program, installed as <project>/cgi-bin/submit_rpc and reached at
// <master_url>submit_rpc_handler.php through an Apache alias (docs/remote_submission.md).
// The project is the parent of the program's directory, or $THARSIS_PROJECT_DIR.
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>

#include "db/database.h"
#include "lib/log.h"
#include "lib/project_config.h"
#include "sched/lib/cgi_server.h"
#include "sched/lib/submit/submit_limits.h"
#include "sched/lib/submit/submit_reply.h"
#include "sched/lib/submit/submit_rpc.h"

using namespace tharsis;

namespace {

std::string project_dir() {
  if (const char* env = std::getenv("THARSIS_PROJECT_DIR")) return env;
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string();
}

HttpResponse xml(std::string body) { return HttpResponse{200, "text/xml", std::move(body)}; }

}  // namespace

int main() {
  set_log_program("submit_rpc");
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
        if (request.method != "POST") return xml(render_submit_error("", "submit requests must be POSTed"));
        try {
          if (!db) db = Database::open(config->db);
          return xml(handle_submit_rpc(request.body, *db, *config, limits, std::time(nullptr)));
        } catch (const std::exception& e) {
          db.reset();
          log_error("request failed: ", e.what());
          return xml(render_submit_error("", "server error; please try again later"));
        }
      },
      limits.max_request_bytes);
}
