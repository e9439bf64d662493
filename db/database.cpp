// Implementation of db/database.h.
#include "db/database.h"

#include <cppconn/exception.h>
#include <cppconn/statement.h>
#include <mysql_connection.h>
#include <mysql_driver.h>

#include <random>
#include <sstream>
#include <thread>

#include "db/mariadb_errors.h"
#include "db/sql.h"
#include "lib/log.h"

namespace tharsis {
namespace {

namespace err = mariadb_error;

constexpr int kMaxConflictRetries = 20;
constexpr int kMaxConnectionRetries = 5;
// How long a node that failed (refused, lost, not ready) is passed over by reconnects
// while another node is available.
constexpr auto kNodeAsideFor = std::chrono::seconds(5);

void sleep_jittered(int attempt) {
  thread_local std::mt19937 random(std::random_device{}());
  int cap_ms = std::min(1000, 5 << std::min(attempt, 8));
  std::uniform_int_distribution<int> ms(cap_ms / 2, cap_ms);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms(random)));
}

std::string describe(const DbEndpoint& e, const std::string& name) {
  return e.socket.empty() ? e.host + ":" + std::to_string(e.port) + "/" + name : e.socket + "/" + name;
}

}  // namespace

bool is_connection_error(int code) {
  switch (code) {
    case err::kConnectionError:
    case err::kConnHostError:
    case err::kServerGoneError:
    case err::kServerLost:
    case err::kServerLostExtended:
    case err::kServerShutdown:
    case err::kConnectionKilled:
    case err::kClientInteractionTimeout:
    case err::kUnknownCom:  // Galera: node not ready; another node may serve
    // Galera: the node left the primary component while the statement committed (seen
    // as a node rejoined under load); rolled back, so re-running it, here or on another
    // node, is safe. (A disk error at COMMIT gives it too: waited out as well, not exited.)
    case err::kErrorDuringCommit:
      return true;
    default:
      return false;
  }
}

bool DbError::connection_lost() const { return is_connection_error(code_); }
bool DbError::retryable_conflict() const {
  return code_ == err::kLockDeadlock || code_ == err::kLockWaitTimeout;
}
bool DbError::lock_wait_timeout() const { return code_ == err::kLockWaitTimeout; }
bool DbError::duplicate_key() const { return code_ == err::kDupEntry; }

Database::Database(const DbConfig& config) : config_(config) {
  nodes_.push_back(config.endpoint());
  nodes_.insert(nodes_.end(), config.fallbacks.begin(), config.fallbacks.end());
  aside_until_.assign(nodes_.size(), {});
}
Database::~Database() = default;

std::unique_ptr<Database> Database::open(const DbConfig& config) {
  std::unique_ptr<Database> db(new Database(config));
  db->connect_any();
  return db;
}

void Database::drop_connection() {
  statements_.clear();
  plain_statement_.reset();
  connection_.reset();
}

void Database::connect() {
  drop_connection();
  in_transaction_ = false;
  const DbEndpoint& node = nodes_[static_cast<size_t>(current_)];
  sql::ConnectOptionsMap options;
  options["hostName"] = node.socket.empty()
                            ? sql::SQLString("tcp://" + node.host + ":" + std::to_string(node.port))
                            : sql::SQLString("unix://" + node.socket);
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
    // Initialised once, thread-safely: a daemon's workers (--threads) connect at once.
    static sql::mysql::MySQL_Driver* const driver = sql::mysql::get_mysql_driver_instance();
    // The client library keeps per-thread state; initialise it once per thread.
    thread_local bool thread_ready = false;
    if (!thread_ready) {
      driver->threadInit();
      thread_ready = true;
    }
    connection_.reset(driver->connect(options));
    std::unique_ptr<sql::Statement> st(connection_->createStatement());
    if (nodes_.size() > 1) {
      // A Galera node accepts connections while joining or cut off from the primary
      // component, then refuses statements (kUnknownCom): find out now, not in a transaction.
      std::unique_ptr<sql::ResultSet> ready(st->executeQuery("SHOW GLOBAL STATUS LIKE 'wsrep_ready'"));
      if (ready->next() && std::string(ready->getString(2)) != "ON") {
        drop_connection();
        throw DbError("MariaDB node " + describe(node, config_.name) + " is not ready (wsrep_ready=OFF)",
                      err::kUnknownCom, "connect");
      }
    }
    // One round trip for the session's settings (a CGI process connects per request).
    std::string settings =
        "SET SESSION tx_isolation = 'READ-COMMITTED', SESSION innodb_lock_wait_timeout = 10";
    if (nodes_.size() > 1 && config_.causal_reads) settings += ", SESSION wsrep_sync_wait = 1";
    if (config_.implicit_begin) settings += ", SESSION autocommit = 0";
    st->execute(settings);
  } catch (const sql::SQLException& e) {
    drop_connection();
    throw DbError("cannot connect to MariaDB at " + describe(node, config_.name) + " as '" + config_.user +
                      "': " + e.what(),
                  e.getErrorCode(), "connect");
  }
}

void Database::connect_to(int node) {
  current_ = node;
  connect();
  const int previous = last_connected_;
  last_connected_ = node;
  // A first connection to a fall-back is a move too (a daemon opens a new connection
  // after losing its node).
  if (node != previous && !(previous == -1 && node == 0)) {
    ++failovers_;
    log_warning("database: now on node ", describe(nodes_[static_cast<size_t>(node)], config_.name),
                node == 0 ? " (own node)" : " (fall-back)");
  }
}

void Database::set_node_aside(int node) {
  if (nodes_.size() > 1)
    aside_until_[static_cast<size_t>(node)] = std::chrono::steady_clock::now() + kNodeAsideFor;
}

void Database::connect_any() {
  const auto now = std::chrono::steady_clock::now();
  const int count = static_cast<int>(nodes_.size());
  // The own node first, then the others in order; nodes set aside come last (if every
  // node failed recently, try them all anyway rather than give up).
  std::vector<int> order;
  for (int pass = 0; pass < 2; ++pass) {
    for (int node = 0; node < count; ++node) {
      bool aside = aside_until_[static_cast<size_t>(node)] > now;
      if (aside == (pass == 1)) order.push_back(node);
    }
  }
  for (size_t k = 0;; ++k) {
    try {
      if (order[k] == 0) last_home_try_ = now;
      connect_to(order[k]);
      return;
    } catch (const DbError& e) {
      if (!e.connection_lost() || k + 1 == order.size()) throw;
      log_warning("database: ", e.what(), "; trying the next node");
      set_node_aside(order[k]);
    }
  }
}

// On a fall-back node outside a transaction: every home_retry_seconds, try the own node
// (it may have rejoined), so instances spread over the nodes again after an outage.
void Database::maybe_return_home() {
  if (current_ == 0 || in_transaction_ || !connection_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_home_try_ < std::chrono::duration<double>(config_.home_retry_seconds)) return;
  last_home_try_ = now;
  const int away = current_;
  try {
    connect_to(0);
  } catch (const DbError& e) {
    log_debug("database: own node still unavailable: ", e.what());
    try {
      connect_to(away);
    } catch (const DbError&) {
      drop_connection();  // the next statement reconnects to whichever node serves
    }
  }
}

void Database::ensure_connected() {
  if (!connection_) {
    if (in_transaction_) {
      throw DbError("connection lost inside a transaction", err::kServerLost, "transaction");
    }
    reconnect();
  }
}

void Database::reconnect() {
  for (int attempt = 1;; ++attempt) {
    try {
      connect_any();
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
    set_node_aside(current_);
    drop_connection();
  }
  return DbError(
      "MariaDB error " + std::to_string(code) + " (" + e.getSQLState() + ") in '" + name + "': " + e.what(),
      code, name);
}

sql::Statement& Database::plain_statement() {
  if (!plain_statement_) plain_statement_.reset(connection_->createStatement());
  return *plain_statement_;
}

Database::InUse::InUse(Database& db, std::nothrow_t) : db_(db) {
  const std::thread::id me = std::this_thread::get_id();
  std::thread::id holder;
  took_ = db.user_.compare_exchange_strong(holder, me, std::memory_order_acquire);
  refused_ = !took_ && holder != me;
}

Database::InUse::InUse(Database& db) : InUse(db, std::nothrow) {
  if (refused_) {
    throw DbError("a database connection used by two threads at once (one Database per thread)",
                  kConnectionInUse, "");
  }
}

void Database::begin(Isolation isolation) {
  InUse use(*this);
  maybe_return_home();
  ensure_connected();
  // Plain statements instead of setAutoCommit(false)/commit()/setAutoCommit(true): one
  // round trip each way instead of three per transaction; autocommit stays on outside.
  try {
    // SET TRANSACTION (no SESSION) applies to the next transaction only.
    if (isolation == Isolation::Snapshot) {
      plain_statement().execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    }
    // With autocommit off the first statement starts the transaction (none is open: every
    // statement outside one was committed at once, end_implicit_transaction).
    if (!config_.implicit_begin) plain_statement().execute("START TRANSACTION");
  } catch (const sql::SQLException& e) {
    throw translate(e, "START TRANSACTION");
  }
  in_transaction_ = true;
}

void Database::commit() {
  InUse use(*this);
  try {
    plain_statement().execute("COMMIT");
  } catch (const sql::SQLException& e) {
    in_transaction_ = false;
    throw translate(e, "COMMIT");
  }
  in_transaction_ = false;
}

void Database::rollback_quietly() {
  // Nothing of this object is touched while another thread's call is on it: this
  // thread's call was refused, and the state is that call's.
  InUse use(*this, std::nothrow);
  if (use.refused()) return;
  in_transaction_ = false;
  if (!connection_) return;
  try {
    plain_statement().execute("ROLLBACK");
  } catch (const sql::SQLException& e) {
    // The connection is unusable; the next call reconnects.
    drop_connection();
  }
}

void Database::end_implicit_transaction(bool ok) {
  if (!config_.implicit_begin || in_transaction_ || !connection_) return;
  if (!ok) {
    rollback_quietly();
    return;
  }
  try {
    plain_statement().execute("COMMIT");
  } catch (const sql::SQLException& e) {
    throw translate(e, "COMMIT");
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
    if (connection_) set_node_aside(current_);
    drop_connection();
    sleep_jittered(attempt + 3);
    return true;
  }
  return false;
}

int64_t Database::connection_id() { return query_int(*this, "SELECT CONNECTION_ID()"); }

void Database::execute_trusted_script(const std::string& text) {
  InUse use(*this);
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
  end_implicit_transaction(true);
}

void Database::ping() { query_int(*this, "SELECT 1"); }

}  // namespace tharsis
