// get_output: BOINC's get_output.php for remote submitters (sched/lib/submit/
// output_download.h), a CGI/FastCGI program installed as <project>/cgi-bin/get_output and
// reached at <master_url>get_output.php through an Apache alias.
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/log.h"
#include "sched/lib/cgi_server.h"
#include "sched/lib/submit/output_download.h"

using namespace tharsis;

int main() {
  set_log_program("get_output");
  std::string dir =
      std::getenv("THARSIS_PROJECT_DIR")
          ? std::getenv("THARSIS_PROJECT_DIR")
          : std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string();
  auto config = load_project_config(dir + "/config.xml");
  if (!config.ok()) {
    log_error("cannot start: ", config.error());
    return serve_cgi_or_fastcgi(
        [](const HttpRequest&) {
          return HttpResponse{500, "text/plain", "ERROR: project is misconfigured\n"};
        },
        1 << 12);
  }
  std::unique_ptr<Database> db;
  return serve_cgi_or_fastcgi(
      [&](const HttpRequest& request) {
        try {
          if (!db) db = Database::open(config->db);
          return handle_get_output(request.query_string, *db, *config);
        } catch (const std::exception& e) {
          db.reset();
          log_error("request failed: ", e.what());
          return HttpResponse{503, "text/plain", "ERROR: server error; please try again later\n"};
        }
      },
      1 << 12);
}
