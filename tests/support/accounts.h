// Accounts for the remote submission tests: a user row with a known authenticator (the
// key a submitter sends), named `name`, email <name>@example.org.
#pragma once

#include <cstdint>
#include <string>

#include "db/database.h"

namespace tharsis::testing {

int64_t add_account(Database& db, const std::string& name, const std::string& authenticator);

// The three submitters of the remote submission tests, with these authenticators: "owner"
// and "other" may submit for every app, "nogrant" has no grant.
struct Submitters {
  int64_t owner = 0, other = 0, nogrant = 0;
};
Submitters add_submitters(Database& db, const std::string& owner_key, const std::string& other_key,
                          const std::string& nogrant_key);

}  // namespace tharsis::testing
