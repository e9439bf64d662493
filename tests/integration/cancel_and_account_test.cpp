// The admin tools behind the stock-client path, over a real MariaDB: create_account makes
// accounts with fresh random authenticators the scheduler accepts; cancel_workunits sets
// WU_ERROR_CANCELLED once, refuses unknown names without changing anything, and leaves
// assimilated workunits alone. (That the stock client then aborts the job is
// boinc_client_test's.)
#include <gtest/gtest.h>

#include <cctype>

#include "db/sql.h"
#include "db/user_store.h"
#include "db/workunit_store.h"
#include "lib/work/create_work.h"
#include "tests/support/test_project.h"
#include "tools/lib/accounts.h"
#include "tools/lib/cancel_work.h"

namespace tharsis {
namespace {

TEST(CreateAccount, GivesEachAccountAFreshAuthenticator) {
  testing::TestProject project;
  auto db = project.open();
  auto first = create_account(*db, "ann", "ann@example.org", 1000);
  auto second = create_account(*db, "bob", "bob@example.org", 1000);
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(first->authenticator.size(), 32u);
  for (char c : first->authenticator) EXPECT_TRUE(std::isxdigit(static_cast<unsigned char>(c))) << c;
  EXPECT_NE(first->authenticator, second->authenticator);
  auto found = fetch_user_by_authenticator(*db, second->authenticator);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->name, "bob");
  EXPECT_EQ(found->create_time, 1000);

  EXPECT_FALSE(create_account(*db, "", "x@example.org", 1000).ok());
  auto bad_email = create_account(*db, "carl", "not an address", 1000);
  ASSERT_FALSE(bad_email.ok());
  EXPECT_NE(bad_email.error().find("email"), std::string::npos) << bad_email.error();
  EXPECT_EQ(query_int(*db, "SELECT COUNT(*) FROM user"), 2);
}

class CancelWork : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = project_.open();
    for (const char* name : {"a", "b"}) {
      JobSpec job;
      job.name = name;
      job.appid = project_.appid();
      job.output_template_file = project_.output_template();
      ASSERT_TRUE(create_workunit(*db_, project_.config(), job, 100).ok());
    }
  }
  WorkunitRow wu(const std::string& name) { return *fetch_workunit_by_name(*db_, name); }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
};

TEST_F(CancelWork, SetsTheCancelledBitOnceAndMakesTheWorkunitDue) {
  auto first = cancel_workunits(*db_, {"a"}, 500);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->cancelled, 1);
  EXPECT_EQ(wu("a").error_mask, kWuErrorCancelled);
  EXPECT_EQ(wu("a").transition_time, 500);
  EXPECT_EQ(wu("b").error_mask, 0);

  auto again = cancel_workunits(*db_, {"a"}, 900);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->cancelled, 0);
  EXPECT_EQ(again->already_cancelled, 1);
  EXPECT_EQ(wu("a").transition_time, 500);
}

TEST_F(CancelWork, AnUnknownNameChangesNothing) {
  auto outcome = cancel_workunits(*db_, {"b", "no_such_wu"}, 500);
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.error().find("no_such_wu"), std::string::npos) << outcome.error();
  EXPECT_EQ(wu("b").error_mask, 0);
}

TEST_F(CancelWork, AnAssimilatedWorkunitIsLeftAlone) {
  WorkunitRow done = wu("b");
  done.assimilate_state = AssimilateState::Done;
  update_workunit(*db_, done);
  auto outcome = cancel_workunits(*db_, {"b"}, 500);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->already_done, 1);
  EXPECT_EQ(wu("b").error_mask, 0);
}

}  // namespace
}  // namespace tharsis
