// Which pending credit a fold adds now (plan_credit_fold): a row waits, whole, while its
// host or user is held elsewhere; a vanished holder's part goes nowhere; sums per holder.
#include "daemons/validator/credit_fold_rules.h"

#include <gtest/gtest.h>

#include <limits>

namespace tharsis::credit_fold_rules_test {
namespace {

CreditHolderRows locked(std::set<int64_t> ids) { return {ids, ids}; }

TEST(CreditFoldRules, RowsOfFreeHoldersAreSummedPerHostAndPerUser) {
  std::vector<PendingCredit> pending = {{1, 3, 7, 1.5}, {2, 4, 7, 2.0}, {3, 3, 0, 0.25}, {4, 0, 7, -1.0}};
  CreditFold fold = plan_credit_fold(pending, locked({3, 4}), locked({7}));
  EXPECT_EQ(fold.folded, (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(fold.to_hosts, (std::map<int64_t, double>{{3, 1.75}, {4, 2.0}}));
  EXPECT_EQ(fold.to_users, (std::map<int64_t, double>{{7, 2.5}}));
}

TEST(CreditFoldRules, ARowWhoseHostOrUserIsHeldElsewhereWaitsWhole) {
  std::vector<PendingCredit> pending = {{5, 3, 7, 1.0}, {6, 4, 7, 2.0}, {7, 4, 8, 4.0}};
  // Host 3 exists but another transaction holds it; user 8 likewise.
  CreditHolderRows hosts{{4}, {3, 4}};
  CreditHolderRows users{{7}, {7, 8}};
  CreditFold fold = plan_credit_fold(pending, hosts, users);
  EXPECT_EQ(fold.folded, (std::vector<int64_t>{6}));
  EXPECT_EQ(fold.to_hosts, (std::map<int64_t, double>{{4, 2.0}}));
  EXPECT_EQ(fold.to_users, (std::map<int64_t, double>{{7, 2.0}}));
}

TEST(CreditFoldRules, AVanishedHoldersPartGoesNowhereAndItsRowsDoNotStay) {
  std::vector<PendingCredit> pending = {{9, 99, 7, 5.0}, {10, 4, 98, 1.0}};
  CreditFold fold = plan_credit_fold(pending, CreditHolderRows{{4}, {4}}, CreditHolderRows{{7}, {7}});
  EXPECT_EQ(fold.folded, (std::vector<int64_t>{9, 10}));
  EXPECT_EQ(fold.to_hosts, (std::map<int64_t, double>{{4, 1.0}}));
  EXPECT_EQ(fold.to_users, (std::map<int64_t, double>{{7, 5.0}}));
}

TEST(CreditFoldRules, ASumNoTotalCouldHoldIsDroppedButItsRowsAreFolded) {
  const double huge = std::numeric_limits<double>::max();
  std::vector<PendingCredit> pending = {{1, 3, 7, huge}, {2, 3, 7, huge}, {3, 4, 7, 1.0}};
  CreditFold fold = plan_credit_fold(pending, locked({3, 4}), locked({7}));
  EXPECT_EQ(fold.folded, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(fold.to_hosts, (std::map<int64_t, double>{{4, 1.0}}));
  EXPECT_TRUE(fold.to_users.empty());
}

TEST(CreditFoldRules, NothingPendingFoldsNothing) {
  CreditFold fold = plan_credit_fold({}, {}, {});
  EXPECT_TRUE(fold.folded.empty());
  EXPECT_TRUE(fold.to_hosts.empty());
  EXPECT_TRUE(fold.to_users.empty());
}

}  // namespace
}  // namespace tharsis::credit_fold_rules_test
