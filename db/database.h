// Database: one connection to the project's MariaDB over MySQL Connector/C++, with
//  - prepared statements only, cached per connection by SQL text; the statements
//    themselves are run through db/sql.h, which only db/*.cpp and tests include: every
//    other layer reaches the database through db/'s typed functions;
//  - transaction(fn): runs fn in START TRANSACTION .. COMMIT, rolls back on exception or
//    when fn returns a Result or Status that is an error (and returns that error: an
//    expected refusal undoes fn's writes without an exception), and re-runs fn after a deadlock or lock wait
//    timeout, and after the connection was lost (server restart, KILL), reconnecting first — bounded retries
//    with jittered back-off. fn must therefore only touch the database (and be safe to
//    re-run): a lost COMMIT acknowledgement may mean the first run did commit, so every
//    state change a daemon makes is guarded by the state it expects (UPDATE .. WHERE
//    state = old), which makes a repeated run a no-op;
//  - reconnection on demand: after a connection error, the next call reconnects;
//  - several nodes (DbConfig::fallbacks, a Galera cluster): a node that refuses or drops
//    the connection, or is not ready (joining, donor, out of the primary component)
//    is set aside for a back-off and the next node tried, the transaction re-run from its
//    start there; a new transaction tries the own node again every home_retry_seconds.
//    Galera's certification conflict at COMMIT arrives as a deadlock and is
//    re-run like one. Galera does not replicate row locks (SELECT .. FOR UPDATE locks
//    one node's copy only): correctness across nodes rests on the guarded writes.
// Unexpected failures throw DbError (message, MySQL error code, statement name). One
// Database per thread; not thread-safe: a call made while another thread's call is still
// on the connection throws DbError (kConnectionInUse) instead of running, since two
// threads on one connection would read each other's replies.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "lib/config/db_config.h"

// The connector's types, named but not defined here (db/sql.h includes their headers).
namespace sql {
class Connection;
class PreparedStatement;
class SQLException;
class Statement;
}  // namespace sql

namespace tharsis {

class DbError : public std::runtime_error {
 public:
  DbError(const std::string& what, int code, std::string statement)
      : std::runtime_error(what), code_(code), statement_(std::move(statement)) {}
  int code() const { return code_; }
  const std::string& statement() const { return statement_; }
  // The server went away, refused us, or cannot serve yet (Galera node not ready, or out
  // of the primary component as a write committed):
  // reconnecting, to this node or another, may help.
  bool connection_lost() const;
  // Deadlock or lock wait timeout: re-running the transaction may help.
  bool retryable_conflict() const;
  // The lock wait timeout alone (a row another transaction holds too long).
  bool lock_wait_timeout() const;
  // A duplicate key: a unique name or id was taken (by another submitter, or a re-run).
  bool duplicate_key() const;

 private:
  int code_;
  std::string statement_;
};

// DbError::code() of a call refused because another thread's call was on the connection.
constexpr int kConnectionInUse = -1;

// Connection-class errors (lost, refused, killed) and Galera's "node not ready"; the
// codes are named in db/mariadb_errors.h.
bool is_connection_error(int mysql_code);

class Database {
 public:
  // Connects (bounded by config's connect timeout of 5 s). Throws DbError.
  static std::unique_ptr<Database> open(const DbConfig& config);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // One round trip; throws DbError when the database cannot be reached.
  void ping();

  // Runs fn(*this) as one transaction; see the file comment for the retry rules.
  template <class Fn>
  auto transaction(Fn&& fn) -> std::invoke_result_t<Fn&, Database&> {
    return run_transaction(fn, Isolation::ReadCommitted);
  }

  // transaction(fn) reading one consistent snapshot of the whole database (REPEATABLE
  // READ for this transaction, each run of it, only): a check that reads piecewise sees no
  // state half-way through another transaction's commit.
  template <class Fn>
  auto snapshot_transaction(Fn&& fn) -> std::invoke_result_t<Fn&, Database&> {
    return run_transaction(fn, Isolation::Snapshot);
  }

  // The server's id for this connection (SELECT CONNECTION_ID()).
  int64_t connection_id();
  // Drops and re-establishes the connection (bounded attempts). Throws DbError.
  void reconnect();
  const DbConfig& config() const { return config_; }
  // The node this connection is on: 0 = the own node (config host/port/socket), i >= 1 =
  // config().fallbacks[i - 1]. -1 while disconnected.
  int current_node() const { return connection_ ? current_ : -1; }
  // Times this object moved to another node than the one it was on (for tests and logs).
  int64_t failovers() const { return failovers_; }
  // Transactions retried so far (deadlocks, timeouts, reconnects); for tests and logs.
  int64_t retries() const { return retries_; }

 private:
  // Every session is READ COMMITTED (set at connect); Snapshot raises one transaction.
  enum class Isolation { ReadCommitted, Snapshot };
  template <class Fn>
  auto run_transaction(Fn& fn, Isolation isolation) -> std::invoke_result_t<Fn&, Database&> {
    using Out = std::invoke_result_t<Fn&, Database&>;
    for (int attempt = 1;; ++attempt) {
      try {
        begin(isolation);
        if constexpr (std::is_void_v<Out>) {
          fn(*this);
          commit();
          return;
        } else {
          Out out = fn(*this);
          if constexpr (requires(const Out& o) { static_cast<bool>(o.ok()); }) {
            if (!out.ok()) {
              rollback_quietly();
              return out;
            }
          }
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

  explicit Database(const DbConfig& config);
  void connect();             // to nodes_[current_]; throws DbError
  void connect_to(int node);  // sets current_ and connects; checks Galera readiness
  void connect_any();         // own node first, then the others not set aside
  void set_node_aside(int node);
  void drop_connection();
  void maybe_return_home();
  void begin(Isolation isolation);
  void commit();
  void rollback_quietly();
  bool should_retry(const DbError& error, int attempt);
  // After a statement: with config().implicit_begin and outside transaction(), commits
  // (ok) or rolls back what the statement opened; otherwise nothing.
  void end_implicit_transaction(bool ok);
  sql::PreparedStatement& prepare(const std::string& sql_text);
  sql::Statement& plain_statement();  // for START TRANSACTION / COMMIT / ROLLBACK

  void ensure_connected();
  // Converts the connector's exception; drops the connection on connection errors so
  // the next call reconnects.
  DbError translate(const sql::SQLException& e, const std::string& sql_text);
  // Runs non-parameterised text (schema scripts, DDL); see execute_trusted_script in db/sql.h.
  void execute_trusted_script(const std::string& text);

  // Held by each call that uses the connection (a statement, a transaction's begin or
  // commit, a script); taking it while another thread holds it throws DbError
  // (kConnectionInUse), taking it again on the thread that holds it is a no-op. The
  // std::nothrow form does not throw: refused() says another thread holds it.
  class InUse {
   public:
    explicit InUse(Database& db);
    InUse(Database& db, std::nothrow_t);
    bool refused() const { return refused_; }
    ~InUse() {
      if (took_) db_.user_.store(std::thread::id(), std::memory_order_release);
    }
    InUse(const InUse&) = delete;
    InUse& operator=(const InUse&) = delete;

   private:
    Database& db_;
    bool took_ = false;
    bool refused_ = false;
  };

  friend struct SqlAccess;  // db/sql.h: the statement cache, for its exec / query

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
  std::atomic<std::thread::id> user_{};  // the thread whose call is on the connection
};

}  // namespace tharsis
