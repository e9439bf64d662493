// DbConfig: where and as whom to reach the project's MariaDB database. Filled from the
// project's config.xml (<db_host>, <db_port>, <db_socket>, <db_user>, <db_passwd>,
// <db_name>, or <db_nodes> for a Galera cluster); a non-empty socket is used instead of
// host and port.
//
// Several nodes (Galera, synchronous multi-primary): host/port/socket name this
// instance's own node and `fallbacks` the others, in the order tried when the own node
// refuses connections, is lost, or is not ready (wsrep). Every node holds the same
// database under the same credentials.
#pragma once

#include <string>
#include <vector>

namespace tharsis {

// One database server: a Unix socket (when non-empty) or host:port.
struct DbEndpoint {
  std::string host;
  int port = 0;
  std::string socket;
  bool operator==(const DbEndpoint&) const = default;
};

struct DbConfig {
  std::string host;
  int port = 0;  // 0 with a socket; never left unset (a stray value failed make_project's check)
  std::string socket;
  std::string user;
  std::string password;
  std::string name;
  // Other nodes of the cluster, tried in order after the own one (empty: one server).
  std::vector<DbEndpoint> fallbacks{};
  // While on a fall-back, how often (seconds) a new transaction first tries the own node
  // again, so an instance returns to its node once that node has rejoined.
  double home_retry_seconds = 30;
  // On a cluster, every read first waits until this node has applied all writes committed
  // anywhere before it (Galera's wsrep_sync_wait = 1): for a program that decides on rows
  // another node may have just written, such as the upload handler checking that a result
  // the scheduler of another node has just sent takes output. Costs a round of the
  // cluster per read; one server: no effect.
  bool causal_reads = false;
  // The session runs with autocommit off (set by a program, not read from config.xml): a
  // transaction starts with its first statement, saving START TRANSACTION's round trip,
  // and a statement outside a transaction is committed (or rolled back) at once, one
  // round trip more, so that no transaction, and none of its metadata locks, stays open
  // after it. For a program whose statements nearly all run in transactions: the
  // scheduler, whose RPC is one.
  bool implicit_begin = false;

  DbEndpoint endpoint() const { return DbEndpoint{host, port, socket}; }
};

}  // namespace tharsis
