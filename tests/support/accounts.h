// Accounts for the remote submission tests: a user row with a known authenticator (the
// key a submitter sends), named `name`, email <name>@example.org.
#pragma once

#include <cstdint>
#include <string>

#include "db/database.h"

namespace tharsis::testing {

int64_t add_account(Database& db, const std::string& name, const std::string& authenticator);

}  // namespace tharsis::testing
