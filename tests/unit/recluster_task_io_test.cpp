// The clustered job's task list and per-task report formats (lib/recluster/task_io.h).
#include <gtest/gtest.h>

#include "lib/recluster/task_io.h"

namespace tharsis {
namespace {

TEST(TaskIo, TaskListRoundTripsAndFlattensNewlines) {
  std::vector<TaskSpec> tasks{{3, "100 alpha"}, {7, "5 two\nlines"}};
  auto back = parse_task_list(render_task_list(tasks));
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].id, 3);
  EXPECT_EQ((*back)[0].payload, "100 alpha");
  EXPECT_EQ((*back)[1].payload, "5 two lines");
}

TEST(TaskIo, TaskListRejectsBadHeaderBadIdAndRepeatedTask) {
  EXPECT_NE(parse_task_list("tasks\ntask 1 x\n").error().find("header"), std::string::npos);
  EXPECT_NE(parse_task_list("tharsis-tasks 1\ntask zero x\n").error().find("line 2"), std::string::npos);
  EXPECT_NE(parse_task_list("tharsis-tasks 1\ntask -4 x\n").error().find("positive"), std::string::npos);
  EXPECT_NE(parse_task_list("tharsis-tasks 1\ntask 4 x\ntask 4 y\n").error().find("twice"),
            std::string::npos);
}

// Found by fuzz/task_list_fuzz.cpp (fuzz/regressions/task_list/): a lone '\r' kept inside a
// payload broke the one-line contract and the render -> parse round trip.
TEST(TaskIo, CrlfLinesReadAsLfAndACarriageReturnInsideALineIsAnError) {
  auto crlf = parse_task_list("tharsis-tasks 1\r\ntask 1 a b\r\ntask 2 c\r\n");
  ASSERT_TRUE(crlf.ok()) << crlf.error();
  ASSERT_EQ(crlf->size(), 2u);
  EXPECT_EQ((*crlf)[0].payload, "a b");
  EXPECT_EQ((*crlf)[1].payload, "c");
  auto inside = parse_task_list("tharsis-tasks 1\ntask 1 a\rb\n");
  ASSERT_FALSE(inside.ok());
  EXPECT_NE(inside.error().find("line 2: carriage return"), std::string::npos) << inside.error();
  auto report = parse_task_report("tharsis-task-report 1\ntask 42 ok \xff\r\xdd\n");
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.error().find("carriage return"), std::string::npos) << report.error();
  auto report_crlf = parse_task_report("tharsis-task-report 1\r\ntask 42 ok 7\r\n");
  ASSERT_TRUE(report_crlf.ok()) << report_crlf.error();
  EXPECT_EQ((*report_crlf)[0].text, "7");
}

TEST(TaskIo, ReportRoundTripsOkAndFailed) {
  std::vector<TaskReport> reports{{1, true, "abc"}, {2, false, "injected task failure"}};
  auto back = parse_task_report(render_task_report(reports));
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_TRUE((*back)[0].ok);
  EXPECT_EQ((*back)[0].text, "abc");
  EXPECT_FALSE((*back)[1].ok);
  EXPECT_EQ((*back)[1].text, "injected task failure");
}

TEST(TaskIo, ReportRejectsUnknownVerdict) {
  auto bad = parse_task_report("tharsis-task-report 1\ntask 1 maybe x\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("'ok' or 'failed'"), std::string::npos);
}

TEST(TaskIo, ReportMustCoverExactlyTheListedTasksInOrder) {
  std::vector<TaskReport> reports{{1, true, ""}, {2, true, ""}};
  EXPECT_TRUE(check_report_matches({1, 2}, reports).ok());
  EXPECT_FALSE(check_report_matches({2, 1}, reports).ok());
  EXPECT_FALSE(check_report_matches({1, 2, 3}, reports).ok());
}

}  // namespace
}  // namespace tharsis
