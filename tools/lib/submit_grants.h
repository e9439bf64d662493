// Granting and revoking remote submission (tools/grant_submit; BOINC manages the same
// user_submit / user_submit_app rows from its web pages): an account may submit to all
// apps, or to the apps listed; --revoke removes the whole grant or the listed apps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/result.h"

namespace tharsis {

struct GrantChange {
  int64_t user_id = 0;            // the account, or 0 and ...
  std::string email;              // ... its email address
  bool all_apps = false;          // submit_all
  std::vector<std::string> apps;  // app names (user_submit_app)
  bool revoke = false;
  int max_jobs_in_progress = -1;  // -1 = leave as is (0 = no limit)
};

// Applies the change in one transaction and says what the account may do now.
// Errors (nothing changed): no such account, an unknown app, nothing to grant.
Result<std::string> change_submit_grant(Database& db, const GrantChange& change);

}  // namespace tharsis
