// Implementation of tests/support/galera_cluster.h.
#include "tests/support/galera_cluster.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

namespace tharsis::testing {
namespace {

std::string galera_script() { return std::string(THARSIS_SOURCE_DIR) + "/scripts/private_galera.sh"; }

bool on_path(const std::string& program) {
  std::string command = "command -v " + program + " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

}  // namespace

std::string GaleraCluster::missing_prerequisite() {
  if (!std::filesystem::exists("/usr/lib/galera/libgalera_smm.so")) {
    return "galera is not installed (/usr/lib/galera/libgalera_smm.so; apt-get install galera-4)";
  }
  if (!on_path("rsync")) return "rsync is not installed (Galera's state transfer; apt-get install rsync)";
  if (!on_path("mariadbd") && !std::filesystem::exists("/usr/sbin/mariadbd"))
    return "mariadbd is not installed";
  if (!on_path("wsrep_sst_rsync")) return "wsrep_sst_rsync is not installed (mariadb-server)";
  return "";
}

GaleraCluster::GaleraCluster(int nodes) : nodes_(nodes) {
  std::string pattern = "/tmp/tharsis-galera-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
  // The web server's user (CGIs of a test project on this cluster) must reach the sockets.
  std::filesystem::permissions(pattern,
                               std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                   std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                   std::filesystem::perms::others_exec);
  dir_ = pattern + "/c";
  if (run("start " + dir_ + " " + std::to_string(nodes)) != 0) {
    std::string parent = pattern;
    run("stop " + dir_);
    std::filesystem::remove_all(parent);
    throw std::runtime_error("cannot start a " + std::to_string(nodes) + "-node Galera cluster in " + dir_ +
                             " (scripts/private_galera.sh start; see its message above)");
  }
}

GaleraCluster::GaleraCluster(const std::string& existing_dir, int nodes)
    : dir_(existing_dir), nodes_(nodes), owned_(false) {}

GaleraCluster& GaleraCluster::shared() {
  static std::unique_ptr<GaleraCluster> cluster = []() -> std::unique_ptr<GaleraCluster> {
    if (const char* dir = std::getenv("THARSIS_TEST_GALERA_DIR")) {
      std::ifstream count(std::string(dir) + "/nodes");
      int nodes = 0;
      if (count >> nodes && nodes > 0) return std::unique_ptr<GaleraCluster>(new GaleraCluster(dir, nodes));
    }
    return std::make_unique<GaleraCluster>(3);
  }();
  return *cluster;
}

GaleraCluster::~GaleraCluster() {
  if (!owned_) return;
  run("stop " + dir_);
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(dir_).parent_path(), ec);
}

int GaleraCluster::run(const std::string& args) const {
  std::string command = galera_script() + " " + args + " >/dev/null";
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

std::string GaleraCluster::socket(int node) const {
  return dir_ + "/n" + std::to_string(node) + "/mysqld.sock";
}

DbConfig GaleraCluster::admin_only(int node) const {
  return DbConfig{"localhost", 0, socket(node), "root", "", ""};
}

DbConfig GaleraCluster::admin(int node) const {
  DbConfig config = admin_only(node);
  for (int k = 1; k < nodes_; ++k) {
    config.fallbacks.push_back(DbEndpoint{"", 0, socket((node - 1 + k) % nodes_ + 1)});
  }
  return config;
}

void GaleraCluster::kill(int node) {
  if (run("kill " + dir_ + " " + std::to_string(node)) != 0) {
    throw std::runtime_error("cannot kill Galera node " + std::to_string(node));
  }
}

void GaleraCluster::restart(int node) {
  if (run("restart " + dir_ + " " + std::to_string(node)) != 0) {
    throw std::runtime_error("Galera node " + std::to_string(node) + " did not rejoin");
  }
}

bool GaleraCluster::healthy() const { return run("status " + dir_) == 0; }

bool GaleraCluster::wait_healthy(double seconds) const {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!healthy()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  return true;
}

void GaleraCluster::heal() {
  for (int node = 1; node <= nodes_; ++node) {
    std::string command = "[ -S " + socket(node) +
                          " ] && mariadb-admin --no-defaults --socket=" + socket(node) +
                          " --user=root --connect-timeout=2 ping >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0) run("restart " + dir_ + " " + std::to_string(node));
  }
  if (!wait_healthy(60))
    throw std::runtime_error("the Galera cluster in " + dir_ + " did not become whole again");
}

}  // namespace tharsis::testing
