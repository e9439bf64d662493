// Implementation of tests/support/test_database.h.
#include "tests/support/test_database.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>
#include <stdexcept>

#include "db/schema_loader.h"

namespace tharsis::testing {
namespace {

std::string mariadb_script() { return std::string(THARSIS_SOURCE_DIR) + "/scripts/private_mariadb.sh"; }

std::string make_temp_dir(const std::string& prefix) {
  std::string pattern = "/tmp/" + prefix + "-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
  return pattern;
}

DbConfig admin_for(const std::string& dir) {
  return DbConfig{"localhost", 0, dir + "/mysqld.sock", "root", "", ""};
}

// The server this process started itself (binary run outside ctest), stopped at exit.
struct OwnServer {
  std::string dir;
  OwnServer() {
    dir = make_temp_dir("tharsis-itest");
    if (run_private_mariadb("start " + dir) != 0)
      throw std::runtime_error("cannot start private MariaDB in " + dir);
  }
  ~OwnServer() { run_private_mariadb("stop " + dir); }
};

}  // namespace

int run_private_mariadb(const std::string& args) {
  std::string command = mariadb_script() + " " + args + " >/dev/null";
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

DbConfig shared_server_admin() {
  if (const char* dir = std::getenv("THARSIS_TEST_DB_DIR")) return admin_for(dir);
  static OwnServer server;
  return admin_for(server.dir);
}

TestDatabase::TestDatabase() : TestDatabase(shared_server_admin()) {}

TestDatabase::TestDatabase(const DbConfig& admin) {
  static std::atomic<int> counter{0};
  std::random_device random;
  config_ = admin;
  std::string name = "t" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" +
                     std::to_string(random() % 100000);
  create_database(config_, name);
  config_.name = name;
}

TestDatabase::~TestDatabase() {
  try {
    drop_database(config_, config_.name);
  } catch (...) {
    // The server may have been stopped by the test; the dir goes with the fixture.
  }
}

DedicatedServer::DedicatedServer() : dir_(make_temp_dir("tharsis-dedicated")) { start(); }
DedicatedServer::~DedicatedServer() { run_private_mariadb("stop " + dir_); }
void DedicatedServer::halt() { run_private_mariadb("halt " + dir_); }
void DedicatedServer::start() {
  if (run_private_mariadb("start " + dir_) != 0) throw std::runtime_error("cannot start MariaDB in " + dir_);
}
DbConfig DedicatedServer::admin() const { return admin_for(dir_); }

TempDir::TempDir(const std::string& prefix) : path_(make_temp_dir(prefix)) {}
TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace tharsis::testing
