// The validator reads a result's outputs only if they are what the result reported
// (daemons/validator/lib/report_checking_comparator.h), on real files.
#include "daemons/validator/lib/report_checking_comparator.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "daemons/validator/validator_rules.h"
#include "lib/crypto/md5.h"
#include "lib/work/output_check.h"
#include "tests/unit/backend_rows_fixture.h"

namespace tharsis {
namespace {

namespace fs = std::filesystem;

class ReportCheckingComparatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tharsis-repcmp-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    comparator_ = make_report_checking_comparator(make_bitwise_comparator(locator()), locator());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A SUCCESS result whose output holds `content` and whose report says `reported`.
  ResultRow result(int64_t id, const std::string& content, const std::string& reported) {
    ResultRow r = test::success(id);
    r.name = "wu7_" + std::to_string(id);
    std::string name = r.name + "_0";
    std::ofstream(dir_ + "/" + name, std::ios::binary) << content;
    r.xml_doc_out = reported_outputs_xml({{name, static_cast<int64_t>(reported.size()), md5_hex(reported)}});
    return r;
  }
  OutputLocator locator() {
    return [this](const ResultRow& r) -> Result<std::vector<std::string>> {
      return std::vector<std::string>{dir_ + "/" + r.name + "_0"};
    };
  }
  std::string dir_;
  std::unique_ptr<ResultComparator> comparator_;
};

TEST_F(ReportCheckingComparatorTest, Validator_OutputAsReportedIsReadable) {
  EXPECT_EQ(comparator_->check_readable(result(101, "answer 42\n", "answer 42\n")), ReadOutcome::Ok);
}

TEST_F(ReportCheckingComparatorTest, Validator_TheInnerComparatorGetsTheFilesAsFound) {
  std::vector<FoundOutput> handed;
  auto inner = std::make_unique<FunctionComparator>(
      [](const ResultRow&) { return ReadOutcome::TransientError; },
      [](const ResultRow&, const ResultRow&) { return CompareOutcome::Match; });
  class Recording final : public ResultComparator {
   public:
    explicit Recording(std::vector<FoundOutput>& handed) : handed_(handed) {}
    ReadOutcome check_readable(const ResultRow&) override { return ReadOutcome::TransientError; }
    ReadOutcome check_found_readable(const ResultRow&, const std::vector<FoundOutput>& found) override {
      handed_ = found;
      return ReadOutcome::Ok;
    }
    CompareOutcome compare(const ResultRow&, const ResultRow&) override { return CompareOutcome::Match; }

   private:
    std::vector<FoundOutput>& handed_;
  };
  auto checked = make_report_checking_comparator(std::make_unique<Recording>(handed), locator());
  EXPECT_EQ(checked->check_readable(result(101, "answer 42\n", "answer 42\n")), ReadOutcome::Ok);
  ASSERT_EQ(handed.size(), 1u);
  EXPECT_EQ(handed[0].path, dir_ + "/wu7_101_0");
  EXPECT_EQ(handed[0].size, 10);
  handed.clear();
  EXPECT_EQ(checked->check_readable(result(102, "forged 4\n", "answer 42\n")), ReadOutcome::PermanentError);
  EXPECT_TRUE(handed.empty()) << "a forged output never reaches the inner comparator";
  // Wrapping a comparator that looks for itself keeps its own verdict.
  auto wrapped = make_report_checking_comparator(std::move(inner), locator());
  EXPECT_EQ(wrapped->check_readable(result(103, "answer 42\n", "answer 42\n")), ReadOutcome::TransientError);
}

TEST_F(ReportCheckingComparatorTest, Validator_OutputSwappedAfterTheReportIsAPermanentError) {
  EXPECT_EQ(comparator_->check_readable(result(101, "forged 4\n", "answer 42\n")),
            ReadOutcome::PermanentError)
      << "other size";
  EXPECT_EQ(comparator_->check_readable(result(102, "answer 43\n", "answer 42\n")),
            ReadOutcome::PermanentError)
      << "same size, other md5";
}

TEST_F(ReportCheckingComparatorTest, Validator_OutputTheReportDoesNotDescribeIsAPermanentError) {
  ResultRow r = result(101, "answer 42\n", "answer 42\n");
  r.xml_doc_out = "";
  EXPECT_EQ(comparator_->check_readable(r), ReadOutcome::PermanentError);
  r.xml_doc_out = "<file_info><name>" + r.name + "_0</name><nbytes>10</nbytes></file_info>";
  EXPECT_EQ(comparator_->check_readable(r), ReadOutcome::PermanentError) << "no md5";
  r.xml_doc_out = "<file_info><name";
  EXPECT_EQ(comparator_->check_readable(r), ReadOutcome::PermanentError) << "malformed";
}

TEST_F(ReportCheckingComparatorTest, Validator_ForgedOutputNeverBecomesCanonical) {
  // Two honest hosts and one whose file was replaced after it reported the honest answer:
  // the forger is VALIDATE_ERROR even though its report matches the others'.
  std::vector<ResultRow> results{result(101, "answer 42!\n", "answer 42\n\n"),
                                 result(102, "answer 42\n", "answer 42\n"),
                                 result(103, "answer 42\n", "answer 42\n")};
  ValidationPlan plan = plan_validation(test::make_wu(2, 3), results, *comparator_, 5000);
  EXPECT_EQ(plan.workunit.canonical_resultid, 102);
  std::map<int64_t, ResultRow> after;
  for (const auto& u : plan.result_updates) after[u.after.id] = u.after;
  EXPECT_EQ(after[101].outcome, Outcome::ValidateError);
  EXPECT_EQ(after[101].validate_state, ValidateState::Error);
  EXPECT_EQ(after[102].validate_state, ValidateState::Valid);
  EXPECT_EQ(after[103].validate_state, ValidateState::Valid);
}

}  // namespace
}  // namespace tharsis
