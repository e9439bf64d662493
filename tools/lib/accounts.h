// Volunteer accounts made by the project admin (BOINC's create_account, from the shell):
// a user row with a fresh random authenticator, the key a volunteer gives the BOINC
// client to attach (boinccmd --project_attach URL AUTHENTICATOR).
#pragma once

#include <string>

#include "db/database.h"
#include "db/rows.h"
#include "lib/result.h"

namespace tharsis {

// 32 lowercase hex digits: the MD5 of bytes from the system's cryptographic random source.
Result<std::string> new_authenticator();

// Inserts the account; errors: empty name, an email address without '@', no randomness.
Result<UserRow> create_account(Database& db, const std::string& name, const std::string& email, int64_t now);

}  // namespace tharsis
