// Database: one connection to the project's MariaDB over MySQL Connector/C++, with
//  - prepared statements only, cached per connection by SQL text (exec / query);
//  - transaction(fn): runs fn in START TRANSACTION .. COMMIT, rolls back on exception,
//    and re-runs fn after a deadlock (1213) or lock wait timeout (1205), and after the
//    connection was lost (server restart, KILL), reconnecting first — bounded retries
//    with jittered back-off. fn must therefore only touch the database (and be safe to
//    re-run): a lost COMMIT acknowledgement may mean the first run did commit, so every
//    state change a daemon makes is guarded by the state it expects (UPDATE .. WHERE
//    state = old), which makes a repeated run a no-op;
//  - reconnection on demand: after a connection error, the next call reconnects;
//  - several nodes (DbConfig::fallbacks, a Galera cluster): a node that refuses or drops
//    the connection, or is not ready (1047: joining, donor, out of the primary component)
//    is set aside for a back-off and the next node tried, the transaction re-run from its
//    start there; a new transaction tries the own node again every home_retry_seconds.
//    Galera's certification conflict at COMMIT arrives as a deadlock (1213) and is
//    re-run like one. Galera does not replicate row locks (SELECT .. FOR UPDATE locks
//    one node's copy only): correctness across nodes rests on the guarded writes.
// Unexpected failures throw DbError (message, MySQL error code, statement name). One
// Database per thread; not thread-safe.
#pragma once

#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "db/db_config.h"

namespace sql {
class Connection;
}

namespace tharsis {

class DbError : public std::runtime_error {
 public:
  DbError(const std::string& what, int code, std::string statement)
      : std::runtime_error(what), code_(code), statement_(std::move(statement)) {}
  int code() const { return code_; }
  const std::string& statement() const { return statement_; }
  // The server went away, refused us, or cannot serve yet (Galera node not ready):
  // reconnecting, to this node or another, may help.
  bool connection_lost() const;
  // Deadlock or lock wait timeout: re-running the transaction may help.
  bool retryable_conflict() const;

 private:
  int code_;
  std::string statement_;
};

// Connection-class errors (lost, refused, killed) and Galera's "node not ready" (1047).
bool is_connection_error(int mysql_code);

class Database {
 public:
  // Connects (bounded by config's connect timeout of 5 s). Throws DbError.
  static std::unique_ptr<Database> open(const DbConfig& config);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs a statement with bound arguments; returns the affected row count.
  template <class... Args>
  int64_t exec(const std::string& sql_text, const Args&... args) {
    return run(
        [&](sql::PreparedStatement& st) {
          bind_all(st, 1, args...);
          return static_cast<int64_t>(st.executeUpdate());
        },
        sql_text);
  }

  // Runs a statement whose placeholders `bind(statement)` fills (a multi-row INSERT whose
  // row count is known only at run time); returns the affected row count.
  template <class Binder>
  int64_t exec_bound(const std::string& sql_text, const Binder& bind) {
    return run(
        [&](sql::PreparedStatement& st) {
          bind(st);
          return static_cast<int64_t>(st.executeUpdate());
        },
        sql_text);
  }

  // Runs a query with bound arguments; the caller reads the rows.
  template <class... Args>
  std::unique_ptr<sql::ResultSet> query(const std::string& sql_text, const Args&... args) {
    return run(
        [&](sql::PreparedStatement& st) {
          bind_all(st, 1, args...);
          return std::unique_ptr<sql::ResultSet>(st.executeQuery());
        },
        sql_text);
  }

  // A single integer from a one-row query (0 when no row / NULL).
  template <class... Args>
  int64_t query_int(const std::string& sql_text, const Args&... args) {
    auto rows = query(sql_text, args...);
    if (!rows->next() || rows->isNull(1)) return 0;
    return rows->getInt64(1);
  }

  int64_t last_insert_id();

  // One round trip; throws DbError when the database cannot be reached.
  void ping();

  // Runs fn(*this) as one transaction; see the file comment for the retry rules.
  template <class Fn>
  auto transaction(Fn&& fn) -> std::invoke_result_t<Fn&, Database&> {
    using Out = std::invoke_result_t<Fn&, Database&>;
    for (int attempt = 1;; ++attempt) {
      try {
        begin();
        if constexpr (std::is_void_v<Out>) {
          fn(*this);
          commit();
          return;
        } else {
          Out out = fn(*this);
          commit();
          return out;
        }
      } catch (const DbError& e) {
        rollback_quietly();
        if (!should_retry(e, attempt)) throw;
      } catch (...) {
        rollback_quietly();
        throw;
      }
    }
  }

  // The server's id for this connection (SELECT CONNECTION_ID()).
  int64_t connection_id();
  // Drops and re-establishes the connection (bounded attempts). Throws DbError.
  void reconnect();
  // Runs non-parameterised text (schema scripts, DDL): the only unprepared path, used
  // for trusted files shipped with Tharsis, never for input.
  void execute_trusted_script(const std::string& text);

  const DbConfig& config() const { return config_; }
  // The node this connection is on: 0 = the own node (config host/port/socket), i >= 1 =
  // config().fallbacks[i - 1]. -1 while disconnected.
  int current_node() const { return connection_ ? current_ : -1; }
  // Times this object moved to another node than the one it was on (for tests and logs).
  int64_t failovers() const { return failovers_; }
  // Transactions retried so far (deadlocks, timeouts, reconnects); for tests and logs.
  int64_t retries() const { return retries_; }

 private:
  explicit Database(const DbConfig& config);
  void connect();             // to nodes_[current_]; throws DbError
  void connect_to(int node);  // sets current_ and connects; checks Galera readiness
  void connect_any();         // own node first, then the others not set aside
  void set_node_aside(int node);
  void drop_connection();
  void maybe_return_home();
  void begin();
  void commit();
  void rollback_quietly();
  bool should_retry(const DbError& error, int attempt);
  sql::PreparedStatement& prepare(const std::string& sql_text);
  sql::Statement& plain_statement();  // for START TRANSACTION / COMMIT / ROLLBACK

  // Runs `body` on the prepared statement; converts sql::SQLException to DbError and
  // drops the connection on connection errors so the next call reconnects.
  template <class Body>
  auto run(Body&& body, const std::string& sql_text)
      -> decltype(body(std::declval<sql::PreparedStatement&>())) {
    ensure_connected();
    try {
      return body(prepare(sql_text));
    } catch (const sql::SQLException& e) {
      throw translate(e, sql_text);
    }
  }
  void ensure_connected();
  DbError translate(const sql::SQLException& e, const std::string& sql_text);

  static void bind_all(sql::PreparedStatement&, int) {}
  template <class First, class... Rest>
  static void bind_all(sql::PreparedStatement& st, int index, const First& first, const Rest&... rest) {
    bind(st, index, first);
    bind_all(st, index + 1, rest...);
  }
  static void bind(sql::PreparedStatement& st, int index, int64_t value) { st.setInt64(index, value); }
  static void bind(sql::PreparedStatement& st, int index, int value) { st.setInt(index, value); }
  static void bind(sql::PreparedStatement& st, int index, bool value) { st.setInt(index, value ? 1 : 0); }
  static void bind(sql::PreparedStatement& st, int index, double value) { st.setDouble(index, value); }
  static void bind(sql::PreparedStatement& st, int index, const std::string& value) {
    st.setString(index, value);
  }
  static void bind(sql::PreparedStatement& st, int index, const char* value) { st.setString(index, value); }
  template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
  static void bind(sql::PreparedStatement& st, int index, E value) {
    st.setInt(index, static_cast<int>(value));
  }

  DbConfig config_;
  std::vector<DbEndpoint> nodes_;  // [own, fallbacks...]
  int current_ = 0;
  int last_connected_ = -1;                                         // node of the last successful connect
  std::vector<std::chrono::steady_clock::time_point> aside_until_;  // per node
  std::chrono::steady_clock::time_point last_home_try_{};
  int64_t failovers_ = 0;
  std::unique_ptr<sql::Connection> connection_;
  std::map<std::string, std::unique_ptr<sql::PreparedStatement>> statements_;
  std::unique_ptr<sql::Statement> plain_statement_;  // declared after connection_: freed first
  bool in_transaction_ = false;
  int64_t retries_ = 0;
};

}  // namespace tharsis
