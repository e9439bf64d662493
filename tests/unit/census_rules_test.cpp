// The census daemon's timing rule (daemons/census/census_rules.h).
#include "daemons/census/census_rules.h"

#include <gtest/gtest.h>

namespace tharsis {
namespace {

TEST(CensusRules, Interval_ConfiguredWhileCountingIsQuick) {
  EXPECT_EQ(census_interval_after(60, 0.0), 60);
  EXPECT_EQ(census_interval_after(60, 0.3), 60);
  EXPECT_EQ(census_interval_after(60, 6.0), 60);  // exactly a tenth of the interval
}

TEST(CensusRules, Interval_StretchesToTenTimesASlowCount) {
  EXPECT_EQ(census_interval_after(60, 6.01), 61);
  EXPECT_EQ(census_interval_after(60, 9.5), 95);  // e.g. 10M results on a busy server
  EXPECT_EQ(census_interval_after(5, 1.2), 12);
}

TEST(CensusRules, Interval_NeverBelowOneSecond) {
  EXPECT_EQ(census_interval_after(0, 0.0), 1);
  EXPECT_EQ(census_interval_after(1, -3.0), 1);  // a clock oddity is not a negative duration
}

}  // namespace
}  // namespace tharsis
