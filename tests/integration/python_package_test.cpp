// The Python package (python/, import tharsis) against a live private project: MariaDB,
// Apache with the submission endpoint, every daemon including the graph scheduler, the
// example and operand apps published, and simulated volunteers (one failing a job in
// ten, one slow) — then `/usr/bin/python3 -m pytest python/tests` with the project's URL
// and a submitter's authenticator in its environment. One project serves the whole
// pytest session, so the suite's wall time stays short. The pytest output is printed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <sstream>

#include "db/submit_grant_store.h"
#include "db/user_store.h"
#include "tests/support/child_process.h"
#include "tests/support/live_project.h"
#include "tests/support/time_scale.h"

namespace tharsis {
namespace {

using testing::LiveProject;

TEST(PythonPackage, PytestSuitePassesAgainstALiveProject) {
  if (std::system("/usr/bin/python3 -c 'import numpy, requests, pytest' 2>/dev/null") != 0) {
    GTEST_SKIP() << "python3-numpy, python3-requests or python3-pytest missing (./tharsis deps)";
  }
  LiveProject live;
  live.publish_app("operand", "operand_app");
  std::string key = live.add_volunteer("pyscientist");
  put_submit_grant(live.db(), SubmitGrant{fetch_user_by_authenticator(live.db(), key)->id, true});
  live.start_daemons();
  live.start_daemon("graph_scheduler", {"--prefer_seconds", "1"});
  testing::TempDir data("tharsis-python-volunteers");
  auto volunteers = live.start_client(
      "volunteers", data.path(),
      live.simulation_args("pyvol", {"ncpus=2", "ncpus=2,job_failure=0.1", "ncpus=2,slowness=2", "ncpus=2"},
                           static_cast<int>(testing::scaled_seconds(900))));

  const std::string source = THARSIS_SOURCE_DIR;
  const std::string log = live.config().project_dir + "/log/pytest.log";
  setenv("THARSIS_URL", live.url(live.config().name + "/").c_str(), 1);
  setenv("THARSIS_AUTHENTICATOR", key.c_str(), 1);
  setenv("THARSIS_PROJECT_DIR", live.config().project_dir.c_str(), 1);
  setenv("THARSIS_GRAPH_EVAL", (testing::built_programs_dir() + "/graph_eval").c_str(), 1);
  setenv("PYTHONPATH", (source + "/python").c_str(), 1);
  setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
  testing::ChildProcess pytest(
      "/usr/bin/python3", {"-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", source + "/python/tests"},
      log);
  const int code = pytest.wait(testing::scaled_seconds(900));
  std::ifstream output(log);
  std::stringstream text;
  text << output.rdbuf();
  std::cout << text.str();
  EXPECT_EQ(code, 0) << "pytest failed; its output is above (and in " << log << ")";
  if (code != 0) {  // the submission endpoint's side of a "server error": its log lines
    std::ifstream errors(live.web_server().error_log());
    std::deque<std::string> last;
    for (std::string line; std::getline(errors, line);) {
      last.push_back(line);
      if (last.size() > 40) last.pop_front();
    }
    std::cout << "last lines of " << live.web_server().error_log() << ":\n";
    for (const auto& line : last) std::cout << "  " << line << "\n";
  }
  EXPECT_TRUE(text.str().find(" passed") != std::string::npos);
  EXPECT_TRUE(live.stop_daemons());
}

}  // namespace
}  // namespace tharsis
