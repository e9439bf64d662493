// SQL for the user table, behind typed functions over UserRow. The scheduler
// authenticates a request by the account's authenticator (unique).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/database.h"
#include "db/rows.h"

namespace tharsis {

int64_t insert_user(Database& db, const UserRow& user);  // returns the new id
std::optional<UserRow> fetch_user(Database& db, int64_t id);
std::optional<UserRow> fetch_user_by_authenticator(Database& db, const std::string& authenticator);
// Writes every column but id and create_time.
void update_user(Database& db, const UserRow& user);

}  // namespace tharsis
