// The short version of the reliability run (docs/reliability.md): bench/chaos.sh for 18 s with its
// own private MariaDB and Apache, daemons SIGKILLed and restarted by `start --cron`, the DB
// restarted, failing hosts, hostile requests (bench/chaos_hostile), a stream of
// workunits and one operand graph; then the drain and `check --settled`. The test reads
// the script's summary: the chaos must really have happened (kills, DB restarts, hostile
// requests), and the run must end with zero violations, every workunit assimilated exactly
// once by the assimilation table, the hostile requests answered with errors (none wrong),
// and no CGI crash.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "lib/text_file.h"
#include "tests/support/child_process.h"
#include "tests/support/test_database.h"
#include "tests/support/time_scale.h"

namespace tharsis {
namespace {

using testing::ChildProcess;

// The first number after `label` in the summary line starting with `line_start`, or -1.
long long figure(const std::string& text, const std::string& line_start, const std::string& label) {
  std::regex pattern("\\n  " + line_start + ":[^\\n]*?" + label + "\\s*(\\d+)");
  std::smatch match;
  if (!std::regex_search(text, match, pattern)) return -1;
  return std::stoll(match[1].str());
}

TEST(ChaosRun, ShortRunEndsCleanWithEachWorkunitAssimilatedOnce) {
  testing::TempDir dir("tharsis-chaos-test");
  std::string log = dir.path() + "/chaos.log";
  ChildProcess chaos(std::string(THARSIS_SOURCE_DIR) + "/bench/chaos.sh",
                     {testing::built_programs_dir(), "0.3", "7"}, log);
  int status = chaos.wait(testing::scaled_seconds(300));  // chaos.sh scales its drain too
  auto text = read_text_file(log);
  ASSERT_TRUE(text.ok()) << text.error();
  const std::string& out = *text;
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("chaos: PASSED"), std::string::npos) << out;

  // The chaos happened.
  EXPECT_GE(figure(out, "daemon kills", ""), 1) << out;
  EXPECT_GE(figure(out, "DB restarts", ""), 1) << out;
  EXPECT_GE(figure(out, "hostile requests", ""), 8) << out;

  // Zero violations, settled, every daemon back.
  EXPECT_EQ(figure(out, "checks", "run,"), 0) << out;
  EXPECT_NE(out.find("settled: yes"), std::string::npos) << out;
  EXPECT_NE(out.find("not running at the end: none"), std::string::npos) << out;

  // Each workunit assimilated exactly once: one assimilation record per workunit.
  long long workunits = figure(out, "workunits", "");
  EXPECT_GT(workunits, 10) << out;
  EXPECT_EQ(figure(out, "workunits", "errored,"), workunits) << "assimilated count" << out;
  EXPECT_EQ(figure(out, "assimilation table", ""), workunits) << out;
  EXPECT_EQ(figure(out, "assimilation table", "records,"), workunits) << "distinct workunits" << out;

  // Hostile requests: refused or harmlessly acked, never answered wrongly; no CGI crash.
  EXPECT_GT(figure(out, "hostile answers", "error_reply"), 0) << out;
  EXPECT_EQ(figure(out, "hostile answers", "wrong"), 0) << out;
  EXPECT_EQ(figure(out, "CGI crashes", ""), 0) << out;
  EXPECT_EQ(figure(out, "graphs", "verified,"), 0) << "failed graphs" << out;
}

}  // namespace
}  // namespace tharsis
