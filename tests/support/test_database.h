// Test support for integration tests: a private MariaDB (never a system service) and a
// fresh database per test with the schema loaded.
//  - Under ctest, one server serves the whole run (CTest fixture mariadb_start/stop);
//    its directory comes in THARSIS_TEST_DB_DIR.
//  - Run alone, the test binary starts its own server in a temp dir, stopped at exit.
//  - DedicatedServer starts a server of a test's own, for tests that stop and restart it.
#pragma once

#include <memory>
#include <string>

#include "db/database.h"
#include "lib/config/db_config.h"

namespace tharsis::testing {

// Runs scripts/private_mariadb.sh with `args`; returns its exit status.
int run_private_mariadb(const std::string& args);

// Root access to the shared private server (database name empty).
DbConfig shared_server_admin();

// A fresh database with the schema, dropped when this object goes.
class TestDatabase {
 public:
  TestDatabase();
  // On another server (a Galera cluster's node, `admin` with its fall-backs).
  explicit TestDatabase(const DbConfig& admin);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;
  const DbConfig& config() const { return config_; }
  std::unique_ptr<Database> open() const { return Database::open(config_); }

 private:
  DbConfig config_;
};

// A private server of one test's own, in its own temp dir.
class DedicatedServer {
 public:
  DedicatedServer();   // starts it
  ~DedicatedServer();  // stops it and removes its dir
  void halt();         // shuts it down, keeping its data
  void start();        // (re)starts it
  DbConfig admin() const;

 private:
  std::string dir_;
};

// A temp directory removed (recursively) on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "tharsis-test");
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tharsis::testing
