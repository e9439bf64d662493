// operand_app_boinc: the operand app built against BOINC's API (Debian libboinc-app-dev)
// so the stock BOINC client can run operand jobs. Same job as operand_app (spec, in0..,
// out; see lib/operand/operand_job.h); the API resolves the open names and is told when
// the job is finished. Exit status 0 on success, 1 with the reason on stderr otherwise.
#include <boinc_api.h>

#include <iostream>
#include <string>

#include "lib/operand/operand_job.h"

int main() {
  const int init = boinc_init();
  if (init != 0) {
    std::cerr << "operand_app_boinc: boinc_init failed with " << init << "\n";
    return 1;
  }
  const tharsis::Status done = tharsis::operand::run_operand_job([](const std::string& open_name) {
    std::string physical;
    if (boinc_resolve_filename_s(open_name.c_str(), physical) != 0) return open_name;
    return physical;
  });
  if (!done.ok()) {
    std::cerr << "operand_app_boinc: " << done.error() << "\n";
    boinc_finish(1);  // does not return
  }
  boinc_fraction_done(1.0);
  boinc_finish(0);  // does not return
  return 0;
}
