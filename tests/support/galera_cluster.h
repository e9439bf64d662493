// Test support: a private MariaDB Galera cluster of N real nodes on this machine
// (scripts/private_galera.sh), for tests of failover, certification conflicts and the
// back end on several nodes. Never a system service; everything under one temp dir.
#pragma once

#include <string>

#include "lib/config/db_config.h"

namespace tharsis::testing {

class GaleraCluster {
 public:
  // Empty when this machine can run a cluster (galera-4, rsync, mariadbd installed);
  // otherwise what is missing, for a GTEST_SKIP message.
  static std::string missing_prerequisite();

  explicit GaleraCluster(int nodes = 3);  // starts it; throws std::runtime_error
  ~GaleraCluster();                       // stops it and removes its dir, if started here
  // The cluster a CTest fixture started (THARSIS_TEST_GALERA_DIR: one per ctest run, as
  // for the shared MariaDB), if that variable names a running one; else a new one of its
  // own (a test binary run alone), stopped at exit.
  static GaleraCluster& shared();
  GaleraCluster(const GaleraCluster&) = delete;
  GaleraCluster& operator=(const GaleraCluster&) = delete;

  int nodes() const { return nodes_; }
  std::string socket(int node) const;  // 1-based
  // Root on node `node` (database name empty), the other nodes as fall-backs in ring
  // order, as select_db_node would set them.
  DbConfig admin(int node) const;
  // Root on node `node` alone (no fall-backs): to look at one node's copy.
  DbConfig admin_only(int node) const;

  void kill(int node);     // SIGKILL
  void restart(int node);  // rejoin; returns once synced in a whole cluster
  // Whether every node is up and synced in a cluster of nodes() (status exit 0).
  bool healthy() const;
  // Waits up to `seconds` for healthy(); returns it.
  bool wait_healthy(double seconds) const;
  // Restarts any node that is down and waits until the cluster is healthy again: a test
  // that failed mid-way leaves the cluster whole for the next.
  void heal();

 private:
  GaleraCluster(const std::string& existing_dir, int nodes);  // attaches, never stops
  int run(const std::string& args) const;
  std::string dir_;
  int nodes_;
  bool owned_ = true;
};

}  // namespace tharsis::testing
