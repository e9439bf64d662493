// The SQL entry points on a Database: prepared statements with bound arguments, run
// through the connection's statement cache. Only db/*.cpp and the tests include this
// header (and with it the MySQL connector's); every other layer reaches the database
// through db/'s typed functions, so SQL text lives in db/ alone.
// These are templates over Database's private cache (SqlAccess), inlined as the member
// functions they replace were: no virtual call or allocation added per statement.
#pragma once

#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "db/database.h"

namespace tharsis {

// The one way into Database's statement cache (a friend of Database).
struct SqlAccess {
  // Runs `body` on the prepared statement for `sql_text`; converts sql::SQLException to
  // DbError and drops the connection on connection errors so the next call reconnects.
  template <class Body>
  static auto run(Database& db, const std::string& sql_text, Body&& body)
      -> decltype(body(std::declval<sql::PreparedStatement&>())) {
    Database::InUse use(db);
    db.ensure_connected();
    try {
      // A query's rows are buffered (the connector's default result set type), so they are
      // read after the commit of an implicit transaction too.
      auto out = body(db.prepare(sql_text));
      db.end_implicit_transaction(true);
      return out;
    } catch (const sql::SQLException& e) {
      DbError error = db.translate(e, sql_text);
      db.end_implicit_transaction(false);
      throw error;
    }
  }
  static void execute_trusted_script(Database& db, const std::string& text) {
    db.execute_trusted_script(text);
  }
};

namespace sql_bind {
inline void bind(sql::PreparedStatement& st, int index, int64_t value) { st.setInt64(index, value); }
inline void bind(sql::PreparedStatement& st, int index, int value) { st.setInt(index, value); }
inline void bind(sql::PreparedStatement& st, int index, bool value) { st.setInt(index, value ? 1 : 0); }
inline void bind(sql::PreparedStatement& st, int index, double value) { st.setDouble(index, value); }
inline void bind(sql::PreparedStatement& st, int index, const std::string& value) {
  st.setString(index, value);
}
inline void bind(sql::PreparedStatement& st, int index, const char* value) { st.setString(index, value); }
// An enum binds as its number: the code in the database is the enum's value (db/states.h).
template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
void bind(sql::PreparedStatement& st, int index, E value) {
  st.setInt(index, static_cast<int>(value));
}

inline void bind_all(sql::PreparedStatement&, int) {}
template <class First, class... Rest>
void bind_all(sql::PreparedStatement& st, int index, const First& first, const Rest&... rest) {
  bind(st, index, first);
  bind_all(st, index + 1, rest...);
}
}  // namespace sql_bind

// Runs a statement with bound arguments; returns the affected row count.
template <class... Args>
int64_t exec(Database& db, const std::string& sql_text, const Args&... args) {
  return SqlAccess::run(db, sql_text, [&](sql::PreparedStatement& st) {
    sql_bind::bind_all(st, 1, args...);
    return static_cast<int64_t>(st.executeUpdate());
  });
}

// Runs a statement whose placeholders `bind(statement)` fills (a multi-row INSERT whose
// row count is known only at run time); returns the affected row count.
template <class Binder>
int64_t exec_bound(Database& db, const std::string& sql_text, const Binder& bind) {
  return SqlAccess::run(db, sql_text, [&](sql::PreparedStatement& st) {
    bind(st);
    return static_cast<int64_t>(st.executeUpdate());
  });
}

// Runs a query with bound arguments; the caller reads the rows.
template <class... Args>
std::unique_ptr<sql::ResultSet> query(Database& db, const std::string& sql_text, const Args&... args) {
  return SqlAccess::run(db, sql_text, [&](sql::PreparedStatement& st) {
    sql_bind::bind_all(st, 1, args...);
    return std::unique_ptr<sql::ResultSet>(st.executeQuery());
  });
}

// A single integer from a one-row query (0 when no row / NULL).
template <class... Args>
int64_t query_int(Database& db, const std::string& sql_text, const Args&... args) {
  auto rows = query(db, sql_text, args...);
  if (!rows->next() || rows->isNull(1)) return 0;
  return rows->getInt64(1);
}

// The id the connection's last INSERT gave an AUTO_INCREMENT column.
inline int64_t last_insert_id(Database& db) { return query_int(db, "SELECT LAST_INSERT_ID()"); }

// Runs non-parameterised text (schema scripts, DDL), statement by statement (each ends
// with ';' at the end of a line; "--" lines are skipped): the only unprepared path, for
// trusted files shipped with Tharsis, never for input.
inline void execute_trusted_script(Database& db, const std::string& text) {
  SqlAccess::execute_trusted_script(db, text);
}

}  // namespace tharsis
