// Creating a project database and loading db/schema.sql into it (make_project, tests).
#pragma once

#include <string>

#include "lib/config/db_config.h"

namespace tharsis {

// Path of the schema shipped with Tharsis: $THARSIS_SCHEMA if set, else the source tree's
// db/schema.sql (compiled in), else <dir of the running program>/schema.sql.
std::string schema_path();

// Connects with `admin` (its `name` ignored) and creates database `name` if missing. A
// database without the project's tables gets db/schema.sql and the latest schema version;
// one that has them (an older project: make_project --force) is upgraded in place by the
// schema migrations (db/schema_migrations.h), which never drop anything. Throws DbError.
void create_database(const DbConfig& admin, const std::string& name);

// Creates (or re-creates, with this password) the account `user` for 'localhost' and '%'
// with SELECT on database `name` and REPLICA MONITOR (to read a replica's lag: it sees
// no data by it) and nothing else: the status pages read with it. Names are
// letters, digits and '_' (user up to 80), the password 8-64 letters or digits. Throws DbError.
void create_read_only_user(const DbConfig& admin, const std::string& name, const std::string& user,
                           const std::string& password);

// Drops database `name` if it exists (tests). Throws DbError.
void drop_database(const DbConfig& admin, const std::string& name);

}  // namespace tharsis
