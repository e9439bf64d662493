// Result<T> and Status carry a value or an error message, never both.
#include "lib/result.h"

#include <gtest/gtest.h>

#include "lib/log.h"

namespace tharsis {
namespace {

Result<int> parse_positive(int x) {
  if (x <= 0) return make_error("expected a positive number, found " + std::to_string(x));
  return x;
}

TEST(Result, HoldsValueWhenOk) {
  auto r = parse_positive(3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 3);
}

TEST(Result, HoldsMessageWhenFailed) {
  auto r = parse_positive(-2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "expected a positive number, found -2");
}

TEST(Status, DefaultIsSuccessAndErrorCarriesMessage) {
  Status fine;
  EXPECT_TRUE(fine.ok());
  Status bad = make_error("disk full");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "disk full");
}

TEST(Log, ParsesLevelNamesAndRejectsOthers) {
  LogLevel level = LogLevel::Info;
  EXPECT_TRUE(parse_log_level("debug", level));
  EXPECT_EQ(level, LogLevel::Debug);
  EXPECT_FALSE(parse_log_level("loud", level));
  EXPECT_EQ(level, LogLevel::Debug);
}

}  // namespace
}  // namespace tharsis
