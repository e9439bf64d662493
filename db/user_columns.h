// For db/*.cpp only: the user table's columns as its statements read them, and the row
// from a result set, so that another table's statement can read a user row beside its
// own (db/host_store.cpp: the account and its host in one statement).
#pragma once

#include <string>

#include "db/rows.h"
#include "db/sql.h"

namespace tharsis {

inline const std::string kUserColumns =
    "id, create_time, email_addr, name, authenticator, cross_project_id, total_credit, expavg_credit, "
    "expavg_time";

// The columns named `prefix` + each of kUserColumns (a statement that reads a user row
// beside another table's selects them as such).
inline UserRow read_user_row(sql::ResultSet& r, const std::string& prefix = "") {
  UserRow u;
  u.id = r.getInt64(prefix + "id");
  u.create_time = r.getInt64(prefix + "create_time");
  u.email_addr = r.getString(prefix + "email_addr");
  u.name = r.getString(prefix + "name");
  u.authenticator = r.getString(prefix + "authenticator");
  u.cross_project_id = r.getString(prefix + "cross_project_id");
  u.total_credit = r.getDouble(prefix + "total_credit");
  u.expavg_credit = r.getDouble(prefix + "expavg_credit");
  u.expavg_time = r.getDouble(prefix + "expavg_time");
  return u;
}

}  // namespace tharsis
