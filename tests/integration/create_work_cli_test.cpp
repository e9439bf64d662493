// The create_work and add_app programs against a real project.
#include <gtest/gtest.h>

#include <fstream>

#include "db/workunit_store.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "tests/support/child_process.h"
#include "tests/support/test_project.h"

namespace tharsis {
namespace {

using testing::ChildProcess;

TEST(CreateWorkCli, BulkModeCreatesOneWorkunitPerLineWithStagedInputs) {
  testing::TestProject project;
  std::string dir = project.dir();
  std::ofstream(dir + "/a.txt") << "seed a\n";
  std::ofstream(dir + "/b.txt") << "seed b\n";
  std::ofstream(dir + "/jobs") << "# name inputs\njob_a " << dir << "/a.txt\njob_b " << dir
                               << "/b.txt=in\n\n";
  std::string log = dir + "/cw.log";
  ChildProcess add("add_app", {"--project_dir", project.config().project_dir, "--app", "example"}, log);
  EXPECT_EQ(add.wait(30), 0) << *read_text_file(log);
  ChildProcess create("create_work",
                      {"--project_dir", project.config().project_dir, "--app", "example", "--bulk",
                       dir + "/jobs", "--min_quorum", "2", "--target_nresults", "2"},
                      log);
  ASSERT_EQ(create.wait(30), 0) << *read_text_file(log);
  auto db = project.open();
  auto a = fetch_workunit_by_name(*db, "job_a");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->min_quorum, 2);
  EXPECT_NE(a->xml_doc.find("<open_name>in</open_name>"), std::string::npos);
  auto staged = read_text_file(
      fanout_path(project.config().download_dir, "job_a_a.txt", project.config().uldl_dir_fanout));
  ASSERT_TRUE(staged.ok());
  EXPECT_EQ(*staged, "seed a\n");
  EXPECT_TRUE(fetch_workunit_by_name(*db, "job_b").has_value());

  // Bad input: a quorum above the target is refused, nothing created.
  ChildProcess bad("create_work",
                   {"--project_dir", project.config().project_dir, "--app", "example", "--wu_name", "bad",
                    "--min_quorum", "3", "--target_nresults", "2"},
                   log);
  EXPECT_EQ(bad.wait(30), 1);
  EXPECT_FALSE(fetch_workunit_by_name(*db, "bad").has_value());
}

}  // namespace
}  // namespace tharsis
