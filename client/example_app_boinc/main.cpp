// example_app_boinc: the example app built against BOINC's API (Debian libboinc-app-dev)
// so the stock BOINC client can run it. The client gives the app its files as logical
// names ("in", "out") that stand for files in the project directory; the app asks the
// API for the physical names, runs the same kernel as example_app, and tells the client
// it finished. Exit status: 0 on success, 1 on a bad input or an unwritable output (the
// client reports the task as an error, with this program's stderr).
#include <boinc_api.h>

#include <iostream>
#include <string>

#include "client/lib/example_kernel.h"

namespace {

// The physical path behind a logical file name; the name itself outside a BOINC slot.
std::string physical_name(const char* logical) {
  std::string physical;
  if (boinc_resolve_filename_s(logical, physical) != 0) return logical;
  return physical;
}

}  // namespace

int main() {
  int init = boinc_init();
  if (init != 0) {
    std::cerr << "example_app_boinc: boinc_init failed with " << init << "\n";
    return 1;
  }
  auto done = tharsis::run_example_files(physical_name("in"), physical_name("out"));
  if (!done.ok()) {
    std::cerr << "example_app_boinc: " << done.error() << "\n";
    boinc_finish(1);  // does not return
  }
  boinc_fraction_done(1.0);
  boinc_finish(0);  // does not return
  return 0;
}
