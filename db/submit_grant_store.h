// SQL for remote-submission grants (BOINC's user_submit and user_submit_app): whether an
// account may submit, to which apps, and its limit of jobs in progress.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"

namespace tharsis {

struct SubmitGrant {
  int64_t user_id = 0;
  bool submit_all = false;  // may submit to every app
  double quota = 0;
  double logical_start_time = 0;
  bool create_apps = false;
  bool manage_all = false;
  int max_jobs_in_progress = 0;  // 0 = no limit
};

// for_update locks the row (submissions of one account that check its limit take turns).
std::optional<SubmitGrant> fetch_submit_grant(Database& db, int64_t user_id, bool for_update = false);
// Whether the account has a user_submit_app row for the app.
bool has_app_grant(Database& db, int64_t user_id, int64_t app_id);
// The apps listed for the account (user_submit_app), by id.
std::vector<int64_t> fetch_granted_apps(Database& db, int64_t user_id);

// Inserts or replaces the account's user_submit row.
void put_submit_grant(Database& db, const SubmitGrant& grant);
// Adds (idempotent) or removes the account's grant for one app.
void add_app_grant(Database& db, int64_t user_id, int64_t app_id);
void remove_app_grant(Database& db, int64_t user_id, int64_t app_id);
// The id of the account with this email address (the grant tool names accounts so), or 0.
int64_t find_user_id_by_email(Database& db, const std::string& email);
// Whether an account with this id exists.
bool user_exists(Database& db, int64_t user_id);

// Removes the account's user_submit row and all its app grants.
void remove_submit_grants(Database& db, int64_t user_id);

}  // namespace tharsis
