// The plain rows the status pages show, as the DB layer's status queries return them
// (the pages only read the database). The renderers in lib/web/*_render.h turn them into
// HTML, JSON or Prometheus text without touching a database, so the pages are tested as
// pure functions. Times are Unix seconds; "now" is passed to renderers separately.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/states.h"

namespace tharsis {

// ---- Server status (admins) ----

struct DaemonStatusRow {
  std::string name;  // e.g. "transitioner" or "validator --mod 2 --mod_id 0"
  std::string host;  // host the instance runs on
  int pid = 0;
  bool running = false;        // decided by the caller (pid alive / heartbeat fresh)
  int64_t last_heartbeat = 0;  // 0: never beat
};

// Number of results in one (server_state, outcome) pair; codes as in db/states.h.
struct ResultStateCount {
  int server_state = 0;
  int outcome = 0;
  int64_t count = 0;
};

// One back-end queue: transition, validation, assimilation, deletion. Counted live for
// each view, up to a cap (db/queue_stats.h); past it, the census's exact count if known.
struct QueueBacklogRow {
  std::string name;
  int64_t count = 0;
  int64_t oldest_age_seconds = 0;
  bool capped = false;        // count stopped at the cap: the backlog is at least count
  int64_t census_count = -1;  // exact count at census.taken_at when capped; -1: none
};

// Where the results-by-state counts come from: the census daemon's snapshot (a few rows),
// or, when no snapshot exists yet, a live count (which scans every result).
struct CensusStatus {
  bool present = false;          // a snapshot exists and the results below are its counts
  int64_t taken_at = 0;          // when it was counted (Unix seconds)
  double duration_seconds = 0;   // how long counting took
  int64_t interval_seconds = 0;  // the daemon's time between snapshots
  bool stale = false;            // too old, or the census daemon is not running
  std::string stale_reason;      // why, for the admins (empty when not stale)
};

// When the pages read from a replica (<replica_db_host>): how current its figures are.
struct ReplicaStatus {
  bool used = false;                  // the figures come from a replica
  bool replication_known = false;     // the replica told its state (SHOW SLAVE STATUS)
  bool replicating = false;           // both replication threads run
  int64_t lag_seconds = -1;           // Seconds_Behind_Master; -1: unknown or stopped
  int64_t newest_heartbeat_age = -1;  // the newest daemon heartbeat on the replica; -1: none
  bool stale = false;
  std::string note;  // what the page says about it, e.g. "replication stopped: ..."
};

struct ServerStatus {
  bool db_reachable = false;
  std::string db_error;  // why not, when !db_reachable (shown to admins)
  std::vector<DaemonStatusRow> daemons;
  std::vector<ResultStateCount> results;
  std::vector<QueueBacklogRow> queues;
  CensusStatus census;  // the source of `results`
  ReplicaStatus replica;
  // Workunits and results whose files the file deleter could not all unlink, waiting to be
  // retried with back-off (file_delete_retry; its log says why); -1: not known (a schema
  // older than this build's, before upgrade_db).
  int64_t file_delete_retries = 0;
};

// ---- Operand graphs (submitters) ----

struct GraphSummary {
  int64_t id = 0;
  std::string name;
  std::string state;  // the graph's state word (graph_state_name), e.g. "running", "done"
  std::map<OperandState, int64_t> operands_by_state;
  double progress = 0;  // 0..1 (finished + freed) / total, computed by the caller
};

struct OperandNode {
  int64_t id = 0;
  std::string label;  // what the operand computes, e.g. "matmul[0,1]"
  int depth = 0;      // 0 for initial operands; a successor is deeper than its predecessors
  OperandState state = OperandState::Unscheduled;
  std::vector<int64_t> preds;  // ids of predecessor operands
  int64_t output_bytes = 0;    // size of its output (operand.output_nbytes)
  int64_t finish_time = 0;     // when its output was assimilated; 0: not yet
  int64_t freed_time = 0;      // when it became FREED (its output deletable); 0: not FREED
};

// Bytes of operand output held on the server at a time (the depth-first order keeps it low).
struct StagedDataPoint {
  int64_t time = 0;
  int64_t bytes = 0;
};

struct GraphDetail {
  int64_t id = 0;
  std::string name;
  std::string state;
  std::vector<OperandNode> operands;
  std::vector<StagedDataPoint> staged_data;
  int64_t staged_bytes_now = 0;  // output of FINISHED operands (kept until their successors finish)
};

// ---- Reclustering (docs/reclustering.md) ----

struct ReclusterSample {
  int64_t time = 0;
  double alpha = 0;  // estimated task failure rate
  double beta = 0;   // estimated job failure rate
  int k = 1;         // cluster size in force at that time
};

struct MakespanPoint {
  double k = 0;
  double makespan = 0;  // M(k), seconds
};

struct ReclusterApp {
  std::string app_name;
  std::string policy;  // "NOOP", "DC", "SR", "DR"
  int current_k = 1;
  std::vector<ReclusterSample> series;        // oldest first
  std::vector<MakespanPoint> makespan_curve;  // M(k) at the current α, for the plot
  // What the curve assumes: the failure model ("TFM": rate α, "JFM": rate β), n tasks
  // left, r active hosts, task time t = φ̄ + C and per-job overhead D (seconds).
  std::string model = "TFM";
  int64_t tasks_left = 0;
  int64_t hosts = 0;
  double task_time = 0;
  double job_overhead = 0;
};

// ---- Volunteers ----

struct HostCreditRow {
  int64_t id = 0;
  std::string name;   // domain name the client reported
  std::string owner;  // user name
  std::string platform;
  double total_credit = 0;
  double recent_credit = 0;  // expavg_credit
  int64_t last_contact = 0;
};

struct UserCreditRow {
  int64_t id = 0;
  std::string name;
  double total_credit = 0;
  double recent_credit = 0;
  int64_t hosts = 0;
};

// Top lists come ordered from the database (credit descending, ties newest first); the
// full lists are one page each, by id, starting after the id the reader asked for.
struct VolunteerTables {
  int64_t user_count = 0;
  int64_t host_count = 0;
  std::vector<UserCreditRow> top_users_by_total;
  std::vector<UserCreditRow> top_users_by_recent;
  std::vector<HostCreditRow> top_hosts_by_total;
  std::vector<HostCreditRow> top_hosts_by_recent;
  std::vector<UserCreditRow> users;  // a page of all users, id ascending
  std::vector<HostCreditRow> hosts;  // a page of all hosts, id ascending
  bool more_users = false;           // a further page follows users.back().id
  bool more_hosts = false;
};

}  // namespace tharsis
