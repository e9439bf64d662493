// Implementation of tests/support/accounts.h.
#include "tests/support/accounts.h"

#include "db/user_store.h"

namespace tharsis::testing {

int64_t add_account(Database& db, const std::string& name, const std::string& authenticator) {
  UserRow user;
  user.name = name;
  user.authenticator = authenticator;
  user.email_addr = name + "@example.org";
  return insert_user(db, user);
}

}  // namespace tharsis::testing
