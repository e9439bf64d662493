// Implementation of tests/support/upload_targets.h.
#include "tests/support/upload_targets.h"

#include <ctime>
#include <stdexcept>

#include "daemons/transitioner/lib/transitioner_pass.h"
#include "db/sql.h"
#include "lib/work/create_work.h"

namespace tharsis::testing {

void make_workunit(Database& db, const TestProject& project, const std::string& job) {
  JobSpec spec;
  spec.name = job;
  spec.appid = project.appid();
  spec.inputs = {InputFile{job + ".in", "in", "seed " + job, false}};
  spec.output_template_file = project.output_template();
  spec.delay_bound = 3600;
  spec.rsc_fpops_est = 1e9;
  auto made = create_workunit(db, project.config(), spec, std::time(nullptr));
  if (!made.ok()) throw std::runtime_error("make_workunit: " + made.error());
  DaemonOptions options;
  DaemonContext context{project.config(), options, Shard{}, 1000};
  TransitionerPass transitioner(project.config());
  transitioner.do_pass(db, context, std::time(nullptr));
}

std::string make_result_in_progress(Database& db, const TestProject& project, const std::string& job) {
  make_workunit(db, project, job);
  auto rows = query(db,
                    "SELECT r.name FROM result r JOIN workunit w ON w.id = r.workunitid WHERE w.name = ? "
                    "ORDER BY r.id LIMIT 1",
                    job);
  if (!rows->next()) throw std::runtime_error("make_result_in_progress: no result for " + job);
  std::string name = rows->getString("name");
  exec(db, "UPDATE result SET server_state = 4, sent_time = ?, report_deadline = ? WHERE name = ?",
       static_cast<int64_t>(std::time(nullptr)), static_cast<int64_t>(std::time(nullptr)) + 3600, name);
  return name;
}

}  // namespace tharsis::testing
