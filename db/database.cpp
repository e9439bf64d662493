// Implementation of db/database.h.
#include "db/database.h"

#include <cppconn/exception.h>
#include <cppconn/statement.h>
#include <mysql_connection.h>
#include <mysql_driver.h>

#include <random>
#include <sstream>

#include "lib/log.h"

namespace tharsis {
namespace {

constexpr int kMaxConflictRetries = 20;
constexpr int kMaxConnectionRetries = 5;

// MySQL/MariaDB error codes (mysqld_error.h, errmsg.h).
constexpr int kErLockDeadlock = 1213;
constexpr int kErLockWaitTimeout = 1205;

void sleep_jittered(int attempt) {
  thread_local std::mt19937 random(std::random_device{}());
  int cap_ms = std::min(1000, 5 << std::min(attempt, 8));
  std::uniform_int_distribution<int> ms(cap_ms / 2, cap_ms);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms(random)));
}

std::string describe(const DbConfig& c) {
  return c.socket.empty() ? c.host + ":" + std::to_string(c.port) + "/" + c.name : c.socket + "/" + c.name;
}

}  // namespace

bool is_connection_error(int code) {
  switch (code) {
    case 2002:  // CR_CONNECTION_ERROR (socket)
    case 2003:  // CR_CONN_HOST_ERROR
    case 2006:  // CR_SERVER_GONE_ERROR
    case 2013:  // CR_SERVER_LOST
    case 2055:  // CR_SERVER_LOST_EXTENDED
    case 1053:  // ER_SERVER_SHUTDOWN
    case 1927:  // ER_CONNECTION_KILLED
    case 4031:  // ER_CLIENT_INTERACTION_TIMEOUT
      return true;
    default:
      return false;
  }
}

bool DbError::connection_lost() const { return is_connection_error(code_); }
bool DbError::retryable_conflict() const { return code_ == kErLockDeadlock || code_ == kErLockWaitTimeout; }

Database::Database(const DbConfig& config) : config_(config) {}
Database::~Database() = default;

std::unique_ptr<Database> Database::open(const DbConfig& config) {
  std::unique_ptr<Database> db(new Database(config));
  db->connect();
  return db;
}

void Database::connect() {
  statements_.clear();
  plain_statement_.reset();
  connection_.reset();
  in_transaction_ = false;
  sql::ConnectOptionsMap options;
  options["hostName"] = config_.socket.empty()
                            ? sql::SQLString("tcp://" + config_.host + ":" + std::to_string(config_.port))
                            : sql::SQLString("unix://" + config_.socket);
  options["userName"] = sql::SQLString(config_.user);
  options["password"] = sql::SQLString(config_.password);
  if (!config_.name.empty()) options["schema"] = sql::SQLString(config_.name);
  options["OPT_CONNECT_TIMEOUT"] = 5;
  options["OPT_RECONNECT"] = false;  // we reconnect ourselves, dropping stale statements
  // Affected-row counts mean "rows matched", so a guarded UPDATE that matches but changes
  // nothing still reports success.
  options["CLIENT_FOUND_ROWS"] = true;
  options["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
  try {
    sql::mysql::MySQL_Driver* driver = sql::mysql::get_mysql_driver_instance();
    // The client library keeps per-thread state; initialise it once per thread.
    thread_local bool thread_ready = false;
    if (!thread_ready) {
      driver->threadInit();
      thread_ready = true;
    }
    connection_.reset(driver->connect(options));
    std::unique_ptr<sql::Statement> st(connection_->createStatement());
    st->execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    st->execute("SET SESSION innodb_lock_wait_timeout = 10");
  } catch (const sql::SQLException& e) {
    connection_.reset();
    throw DbError(
        "cannot connect to MariaDB at " + describe(config_) + " as '" + config_.user + "': " + e.what(),
        e.getErrorCode(), "connect");
  }
}

void Database::ensure_connected() {
  if (!connection_) {
    if (in_transaction_) {
      throw DbError("connection lost inside a transaction", 2013, "transaction");
    }
    reconnect();
  }
}

void Database::reconnect() {
  for (int attempt = 1;; ++attempt) {
    try {
      connect();
      return;
    } catch (const DbError& e) {
      if (attempt >= kMaxConnectionRetries) throw;
      sleep_jittered(attempt + 3);
    }
  }
}

sql::PreparedStatement& Database::prepare(const std::string& sql_text) {
  auto it = statements_.find(sql_text);
  if (it == statements_.end()) {
    it = statements_
             .emplace(sql_text,
                      std::unique_ptr<sql::PreparedStatement>(connection_->prepareStatement(sql_text)))
             .first;
  }
  it->second->clearParameters();
  return *it->second;
}

DbError Database::translate(const sql::SQLException& e, const std::string& sql_text) {
  int code = e.getErrorCode();
  // Statement names in messages: the first 60 characters of the SQL.
  std::string name = sql_text.substr(0, 60);
  if (is_connection_error(code)) {
    statements_.clear();
    plain_statement_.reset();
    connection_.reset();
  }
  return DbError(
      "MariaDB error " + std::to_string(code) + " (" + e.getSQLState() + ") in '" + name + "': " + e.what(),
      code, name);
}

sql::Statement& Database::plain_statement() {
  if (!plain_statement_) plain_statement_.reset(connection_->createStatement());
  return *plain_statement_;
}

void Database::begin() {
  ensure_connected();
  // Plain statements instead of setAutoCommit(false)/commit()/setAutoCommit(true): one
  // round trip each way instead of three per transaction; autocommit stays on outside.
  try {
    plain_statement().execute("START TRANSACTION");
  } catch (const sql::SQLException& e) {
    throw translate(e, "START TRANSACTION");
  }
  in_transaction_ = true;
}

void Database::commit() {
  try {
    plain_statement().execute("COMMIT");
  } catch (const sql::SQLException& e) {
    in_transaction_ = false;
    throw translate(e, "COMMIT");
  }
  in_transaction_ = false;
}

void Database::rollback_quietly() {
  in_transaction_ = false;
  if (!connection_) return;
  try {
    plain_statement().execute("ROLLBACK");
  } catch (const sql::SQLException& e) {
    // The connection is unusable; the next call reconnects.
    statements_.clear();
    plain_statement_.reset();
    connection_.reset();
  }
}

bool Database::should_retry(const DbError& error, int attempt) {
  if (error.retryable_conflict() && attempt < kMaxConflictRetries) {
    ++retries_;
    log_debug("transaction retry ", attempt, " after ", error.what());
    sleep_jittered(attempt);
    return true;
  }
  if (error.connection_lost() && attempt < kMaxConnectionRetries) {
    ++retries_;
    log_warning("database connection lost (", error.what(), "); reconnecting");
    connection_.reset();
    statements_.clear();
    plain_statement_.reset();
    sleep_jittered(attempt + 3);
    return true;
  }
  return false;
}

int64_t Database::last_insert_id() { return query_int("SELECT LAST_INSERT_ID()"); }

int64_t Database::connection_id() { return query_int("SELECT CONNECTION_ID()"); }

void Database::execute_trusted_script(const std::string& text) {
  ensure_connected();
  std::istringstream in(text);
  std::string line, statement;
  auto flush = [&] {
    if (statement.find_first_not_of(" \t\n") == std::string::npos) return;
    try {
      std::unique_ptr<sql::Statement> st(connection_->createStatement());
      st->execute(statement);
    } catch (const sql::SQLException& e) {
      throw translate(e, statement);
    }
    statement.clear();
  };
  while (std::getline(in, line)) {
    auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 2, "--") == 0) continue;
    statement += line + "\n";
    auto last = line.find_last_not_of(" \t\r");
    if (last != std::string::npos && line[last] == ';') flush();
  }
  flush();
}

}  // namespace tharsis
