// sched/lib/rpc/report_plan.h: what a report writes, the daily quota after the accepted
// reports, and the log line of refused reports.
#include <gtest/gtest.h>

#include "sched/lib/rpc/report_plan.h"

namespace tharsis {
namespace {

ReportedResult reported(int state, int exit_status) {
  ReportedResult r;
  r.name = "r1";
  r.state = state;
  r.exit_status = exit_status;
  return r;
}

TEST(SchedReportPlan, OnlyUploadedAndExitZeroIsASuccess) {
  EXPECT_TRUE(reported_success(reported(5, 0)));
  EXPECT_FALSE(reported_success(reported(5, 1)));
  EXPECT_FALSE(reported_success(reported(3, 0)));
  EXPECT_EQ(report_of(reported(5, 0), 1e9).outcome, Outcome::Success);
  EXPECT_EQ(report_of(reported(3, 0), 1e9).outcome, Outcome::ClientError);
}

TEST(SchedReportPlan, TheReportKeepsTheClientsFiguresAndEveryDigitOfTheSizes) {
  ReportedResult r = reported(5, 0);
  r.final_cpu_time = 8640;
  r.final_elapsed_time = 9000;
  r.stderr_out = "done";
  r.output_files.push_back(ReportedFile{"out<1>", 1234567, 0, "abc"});
  ResultReport report = report_of(r, 2e9);
  EXPECT_EQ(report.cpu_time, 8640);
  EXPECT_EQ(report.elapsed_time, 9000);
  EXPECT_DOUBLE_EQ(report.claimed_credit, 2.0);
  EXPECT_EQ(report.stderr_out, "done");
  EXPECT_NE(report.xml_doc_out.find("<nbytes>1234567.000000</nbytes>"), std::string::npos);
  EXPECT_NE(report.xml_doc_out.find("<name>out&lt;1&gt;</name>"), std::string::npos);
  // A state out of BOINC's range is clamped, not cast blindly.
  EXPECT_EQ(report_of(reported(99, 0), 1e9).client_state, static_cast<ClientState>(6));
}

TEST(SchedReportPlan, EachErrorHalvesTheQuotaAndSuccessesGrowItOnlyWithoutErrors) {
  EXPECT_EQ(quota_after_reports(40, 2, 0, 100), 10);
  EXPECT_EQ(quota_after_reports(40, 0, 3, 100), 80);
  EXPECT_EQ(quota_after_reports(40, 1, 5, 100), 20);
  EXPECT_EQ(quota_after_reports(40, 0, 0, 100), 40);
  EXPECT_EQ(quota_after_reports(80, 0, 1, 100), 100);  // capped at the project's default
}

TEST(SchedReportPlan, NothingRefusedLogsNothing) { EXPECT_FALSE(refused_reports_log({}, {}, 4)); }

TEST(SchedReportPlan, DuplicatesOfThisHostAreInformation) {
  HostResultRow mine;
  mine.result_id = 12;
  mine.hostid = 4;
  auto log = refused_reports_log({"r12"}, {mine}, 4);
  ASSERT_TRUE(log);
  EXPECT_FALSE(log->warning);
  EXPECT_EQ(log->line.rfind("1 report from host 4 changed nothing: ", 0), 0u) << log->line;
  EXPECT_NE(log->line.find("result 12 no longer takes reports"), std::string::npos);
}

TEST(SchedReportPlan, UnknownOrAnotherHostsReportsAreWarnedAboutWithAFewExamples) {
  HostResultRow other;
  other.result_id = 13;
  other.hostid = 9;
  HostResultRow mine;
  mine.result_id = 14;
  mine.hostid = 4;
  auto log = refused_reports_log({"a", "b", "c", "d", "e"}, {std::nullopt, other, mine}, 4);
  ASSERT_TRUE(log);
  EXPECT_TRUE(log->warning);
  EXPECT_EQ(log->line.rfind("5 reports from host 4", 0), 0u) << log->line;
  EXPECT_NE(log->line.find("(unknown)"), std::string::npos);
  EXPECT_NE(log->line.find("result 13 sent to host 9"), std::string::npos);
  EXPECT_EQ(log->line.substr(log->line.size() - 5), ", ...");
  EXPECT_EQ(log->line.find("'d'"), std::string::npos);  // only the first few are named
  EXPECT_NE(log->line.find("'c' (result 14 no longer takes reports)"), std::string::npos);
}

}  // namespace
}  // namespace tharsis
