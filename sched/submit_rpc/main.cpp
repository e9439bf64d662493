// submit_rpc: BOINC's remote job submission RPCs (submit_rpc_handler.php's protocol) as a
// CGI or FastCGI program, installed as <project>/cgi-bin/submit_rpc and reached at
// <master_url>submit_rpc_handler.php through an Apache alias (docs/remote_submission.md).
// The project is the parent of the program's directory, or $THARSIS_PROJECT_DIR.
#include <ctime>

#include "sched/lib/submit/submit_endpoint.h"
#include "sched/lib/submit/submit_rpc.h"

using namespace tharsis;

int main() {
  return serve_submit_endpoint(
      "submit_rpc", "submit",
      [](const std::string& body, Database& db, const ProjectConfig& config, const SubmitLimits& limits) {
        return handle_submit_rpc(body, db, config, limits, std::time(nullptr));
      });
}
