// Implementation of tests/support/accounts.h.
#include "tests/support/accounts.h"

#include "db/submit_grant_store.h"
#include "db/user_store.h"

namespace tharsis::testing {

int64_t add_account(Database& db, const std::string& name, const std::string& authenticator) {
  UserRow user;
  user.name = name;
  user.authenticator = authenticator;
  user.email_addr = name + "@example.org";
  return insert_user(db, user);
}

Submitters add_submitters(Database& db, const std::string& owner_key, const std::string& other_key,
                          const std::string& nogrant_key) {
  Submitters s;
  s.owner = add_account(db, "owner", owner_key);
  s.other = add_account(db, "other", other_key);
  s.nogrant = add_account(db, "nogrant", nogrant_key);
  put_submit_grant(db, SubmitGrant{s.owner, true});
  put_submit_grant(db, SubmitGrant{s.other, true});
  return s;
}

}  // namespace tharsis::testing
