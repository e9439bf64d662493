// Implementation of db/user_store.h.
#include "db/user_store.h"

#include "db/sql.h"
#include "db/user_columns.h"

namespace tharsis {
namespace {

std::optional<UserRow> read_one(std::unique_ptr<sql::ResultSet> rows) {
  if (!rows->next()) return std::nullopt;
  return read_user_row(*rows);
}

}  // namespace

int64_t insert_user(Database& db, const UserRow& u) {
  exec(db,
       "INSERT INTO user (create_time, email_addr, name, authenticator, cross_project_id, "
       "total_credit, expavg_credit, expavg_time) VALUES (?,?,?,?,?,?,?,?)",
       u.create_time, u.email_addr, u.name, u.authenticator, u.cross_project_id, u.total_credit,
       u.expavg_credit, u.expavg_time);
  return last_insert_id(db);
}

std::optional<UserRow> fetch_user(Database& db, int64_t id) {
  return read_one(query(db, "SELECT " + kUserColumns + " FROM user WHERE id = ?", id));
}

std::optional<UserRow> fetch_user_by_authenticator(Database& db, const std::string& authenticator) {
  return read_one(query(db, "SELECT " + kUserColumns + " FROM user WHERE authenticator = ?", authenticator));
}

void update_user(Database& db, const UserRow& u) {
  exec(db,
       "UPDATE user SET email_addr = ?, name = ?, authenticator = ?, cross_project_id = ?, "
       "total_credit = ?, expavg_credit = ?, expavg_time = ? WHERE id = ?",
       u.email_addr, u.name, u.authenticator, u.cross_project_id, u.total_credit, u.expavg_credit,
       u.expavg_time, u.id);
}

}  // namespace tharsis
