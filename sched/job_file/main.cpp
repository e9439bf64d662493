// job_file: BOINC's job_file.php for remote submitters (query_files, upload_files;
// sched/lib/submit/job_files.h), a CGI/FastCGI program installed as
// <project>/cgi-bin/job_file and reached at <master_url>job_file.php through an alias.
#include <ctime>

#include "sched/lib/submit/job_files.h"
#include "sched/lib/submit/submit_endpoint.h"

using namespace tharsis;

int main() {
  return serve_submit_endpoint(
      "job_file", "job_file",
      [](const std::string& body, Database& db, const ProjectConfig& config, const SubmitLimits& limits) {
        return handle_job_file_rpc(body, db, config, limits, std::time(nullptr));
      });
}
