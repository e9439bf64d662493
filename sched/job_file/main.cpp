// job_file: BOINC's job_file.php for remote submitters (query_files, upload_files;
// sched/lib/submit/job_files.h), a CGI/FastCGI program installed as
// <project>/cgi-bin/job_file and reached at <master_url>job_file.php through an alias.
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "db/database.h"
#include "lib/log.h"
#include "lib/project_config.h"
#include "sched/lib/cgi_server.h"
#include "sched/lib/submit/job_files.h"
#include "sched/lib/submit/submit_limits.h"
#include "sched/lib/submit/submit_reply.h"

using namespace tharsis;

int main() {
  set_log_program("job_file");
  std::string dir =
      std::getenv("THARSIS_PROJECT_DIR")
          ? std::getenv("THARSIS_PROJECT_DIR")
          : std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string();
  auto config = load_project_config(dir + "/config.xml");
  auto xml = [](std::string body) { return HttpResponse{200, "text/xml", std::move(body)}; };
  if (!config.ok()) {
    log_error("cannot start: ", config.error());
    return serve_cgi_or_fastcgi(
        [&](const HttpRequest&) { return xml(render_submit_error("", "project is misconfigured")); },
        1 << 16);
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
        if (request.method != "POST") return xml(render_submit_error("", "job_file requests must be POSTed"));
        try {
          if (!db) db = Database::open(config->db);
          return xml(handle_job_file_rpc(request.body, *db, *config, limits));
        } catch (const std::exception& e) {
          db.reset();
          log_error("request failed: ", e.what());
          return xml(render_submit_error("", "server error; please try again later"));
        }
      },
      limits.max_request_bytes);
}
