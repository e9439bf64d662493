// The validator's file comparators on real files in a temp dir.
#include "daemons/validator/lib/file_comparators.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

namespace tharsis {
namespace {

namespace fs = std::filesystem;

class FileComparatorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tharsis-cmp-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  ResultRow result_with_files(int64_t id, const std::vector<std::string>& contents) {
    ResultRow row;
    row.id = id;
    for (size_t i = 0; i < contents.size(); ++i) {
      std::string path = dir_ + "/r" + std::to_string(id) + "_" + std::to_string(i);
      std::ofstream(path, std::ios::binary) << contents[i];
      files_[id].push_back(path);
    }
    return row;
  }
  ResultRow result_with_doubles(int64_t id, const std::vector<double>& values) {
    std::string bytes(values.size() * sizeof(double), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return result_with_files(id, {bytes});
  }
  OutputLocator locator() {
    return [this](const ResultRow& r) -> Result<std::vector<std::string>> {
      auto it = files_.find(r.id);
      if (it == files_.end()) return make_error("no outputs for result " + std::to_string(r.id));
      return it->second;
    };
  }

  std::string dir_;
  std::map<int64_t, std::vector<std::string>> files_;
};

TEST_F(FileComparatorsTest, BitwiseMatchesIdenticalFilesOnly) {
  auto cmp = make_bitwise_comparator(locator());
  auto a = result_with_files(1, {"hello", "world"});
  auto b = result_with_files(2, {"hello", "world"});
  auto c = result_with_files(3, {"hello", "World"});
  EXPECT_EQ(cmp->compare(a, b), CompareOutcome::Match);
  EXPECT_EQ(cmp->compare(a, c), CompareOutcome::Mismatch);
}

TEST_F(FileComparatorsTest, MissingOutputIsAPermanentReadError) {
  auto cmp = make_bitwise_comparator(locator());
  auto a = result_with_files(1, {"x"});
  fs::remove(files_[1][0]);
  EXPECT_EQ(cmp->check_readable(a), ReadOutcome::PermanentError);
  ResultRow unknown;
  unknown.id = 99;
  EXPECT_EQ(cmp->check_readable(unknown), ReadOutcome::PermanentError);
  EXPECT_EQ(cmp->check_readable(result_with_files(2, {"y"})), ReadOutcome::Ok);
}

TEST_F(FileComparatorsTest, FoundOutputsAreJudgedWithoutLookingAgain) {
  // What the report check found stands: no stat (the paths need not exist), only the size rule.
  ResultRow row;
  row.id = 5;
  for (auto& cmp :
       {make_bitwise_comparator(locator()), make_numeric_comparator(locator(), NumericTolerance{}),
        make_trivial_comparator(locator())}) {
    EXPECT_EQ(cmp->check_found_readable(row, {{dir_ + "/gone", 7}}), ReadOutcome::Ok);
    EXPECT_EQ(cmp->check_found_readable(row, {{dir_ + "/a", 0}, {dir_ + "/b", kMaxComparedFileBytes}}),
              ReadOutcome::Ok);
    EXPECT_EQ(cmp->check_found_readable(row, {{dir_ + "/a", 7}, {dir_ + "/b", kMaxComparedFileBytes + 1}}),
              ReadOutcome::PermanentError);
    EXPECT_EQ(cmp->check_found_readable(row, {}), ReadOutcome::PermanentError);
  }
  // A comparator of its own looks again (the default).
  int looked = 0;
  FunctionComparator own([&](const ResultRow&) { return ++looked, ReadOutcome::TransientError; },
                         [](const ResultRow&, const ResultRow&) { return CompareOutcome::Match; });
  EXPECT_EQ(own.check_found_readable(row, {{dir_ + "/a", 7}}), ReadOutcome::TransientError);
  EXPECT_EQ(looked, 1);
}

TEST_F(FileComparatorsTest, NumericAgreesWithinToleranceAndRejectsBeyond) {
  auto cmp = make_numeric_comparator(locator(), NumericTolerance{0, 1e-9});
  auto a = result_with_doubles(1, {1.0, 2.0, -3.5, std::nan("")});
  auto b = result_with_doubles(2, {1.0 + 1e-12, 2.0, -3.5, std::nan("")});
  auto c = result_with_doubles(3, {1.0, 2.0 + 1e-6, -3.5, std::nan("")});
  auto d = result_with_doubles(4, {1.0, 2.0, -3.5});
  EXPECT_EQ(cmp->compare(a, b), CompareOutcome::Match);
  EXPECT_EQ(cmp->compare(a, c), CompareOutcome::Mismatch);
  EXPECT_EQ(cmp->compare(a, d), CompareOutcome::Mismatch);
}

TEST_F(FileComparatorsTest, NumericTreatsUndecodableGarbageAsPermanentError) {
  auto cmp = make_numeric_comparator(locator(), NumericTolerance{});
  auto good = result_with_doubles(1, {1.0});
  auto garbage = result_with_files(2, {"not eight bytes"});
  EXPECT_EQ(cmp->compare(good, garbage), CompareOutcome::PermanentError);
  EXPECT_FALSE(decode_raw_doubles(files_[2][0]).ok());
}

TEST_F(FileComparatorsTest, TrivialMatchesAnyReadableOutputs) {
  auto cmp = make_trivial_comparator(locator());
  EXPECT_EQ(cmp->compare(result_with_files(1, {"a"}), result_with_files(2, {"b"})), CompareOutcome::Match);
}

TEST(NumbersAgree, HandlesInfinitiesAndNaN) {
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(numbers_agree(inf, inf, {}));
  EXPECT_FALSE(numbers_agree(inf, -inf, {}));
  EXPECT_FALSE(numbers_agree(1.0, std::nan(""), {}));
  EXPECT_TRUE(numbers_agree(1e-15, 0.0, {1e-12, 0}));
}

TEST(MakeComparator, NamesTheKnownComparatorsAndRejectsOthers) {
  OutputLocator none = [](const ResultRow&) -> Result<std::vector<std::string>> {
    return std::vector<std::string>{};
  };
  EXPECT_TRUE(make_comparator("numeric", none).ok());
  auto bad = make_comparator("fuzzy", none);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("fuzzy"), std::string::npos);
}

}  // namespace
}  // namespace tharsis
