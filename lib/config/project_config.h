// ProjectConfig: the typed form of a project's config.xml, BOINC's layout
//   <boinc><config>...</config><daemons><daemon><cmd>..</cmd><disabled>0</disabled>
//   </daemon>...</daemons></boinc>
// Every program of a project reads it once at start (load_project_config); make_project
// writes it (render_project_config). Tag names follow BOINC where BOINC has the knob.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/db_config.h"
#include "lib/recluster/model.h"  // ReclusterPolicy, policy_name, parse_policy
#include "lib/result.h"

namespace tharsis {

// One <daemon> entry: what tools/start launches from the project directory.
struct DaemonConfig {
  std::string cmd;        // <cmd>: program name then arguments, e.g. "transitioner --sleep 5"
  bool disabled = false;  // <disabled>: 0/1 (also true/false; an empty <disabled/> means 1)
  // <nice>: 0..19, how much nicer than itself `start` runs the daemon (for a machine it
  // shares with other work; make_project writes none: at 10 the back-end daemons did not
  // shorten the RPC tail, docs/benchmarks.md 2026-11-27).
  int nice = 0;
};
inline constexpr int kMaxDaemonNice = 19;

struct ProjectConfig {
  // Identity and URLs. Required: name, master_url, upload_url, download_url, cgi_url.
  std::string name;          // <name>: short name; letters, digits, '_' and '-' only
  std::string long_name;     // <long_name>: defaults to name
  std::string master_url;    // <master_url>: http(s) URL of the project's home page
  std::string upload_url;    // <upload_url>: the file upload handler
  std::string download_url;  // <download_url>: where download/ is served
  std::string cgi_url;       // <cgi_url>: base URL of cgi-bin/ (scheduler = cgi_url + program)
  // Several scheduler hosts (docs/scaling.md), each URL a scheduler the master page lists:
  //   <scheduler_urls><url>http://s1.example.org/p_cgi/cgi</url>...</scheduler_urls>
  // Empty: the one scheduler <cgi_url>cgi.
  std::vector<std::string> scheduler_urls;

  // Database. Required: <db_name>, <db_user>. <db_host> defaults to "localhost",
  // <db_port> to 3306 (0 = the client library's default), <db_socket> and <db_passwd> to "".
  // A socket wins over host:port.
  DbConfig db{"localhost", 3306, "", "", "", ""};

  // Several database nodes (a Galera cluster), in order:
  //   <db_nodes><node>/run/mysqld/n1.sock</node><node>10.0.0.2:3306</node></db_nodes>
  // A node is an absolute Unix socket path, or host[:port] (port defaults to <db_port>).
  // Credentials and <db_name> are shared. With <db_nodes>, <db_host> and <db_socket> must
  // not be given; `db` is then node 1 with the others as fall-backs, unless the instance
  // picks another node (THARSIS_DB_NODE=I in the environment, or a daemon's --db_node I:
  // select_db_node). Empty when not given.
  std::vector<DbEndpoint> db_nodes;

  // BOINC's replica for read-only queries (status pages, `status`, `check`):
  // <replica_db_host>, <replica_db_name>, <replica_db_user>, <replica_db_passwd>, and
  // Tharsis's <replica_db_port>, <replica_db_socket>. As in BOINC, each one not given
  // falls back to the primary's value (replica_db_config); kept here as given.
  struct ReplicaSettings {
    std::string host, socket, name, user, password;
    int port = 0;  // 0: <db_port>
  } replica;

  // Directories, all absolute. <project_dir> is required; the others default to
  // project_dir + "/download", "/upload", "/keys", "/log", "/pid", "/tmp".
  std::string project_dir;
  std::string download_dir;
  std::string upload_dir;
  std::string key_dir;
  std::string log_dir;  // BOINC names it log_<host>; Tharsis uses one log/ per project dir
  std::string pid_dir;  // BOINC's pid_<host>; here pid/
  std::string tmp_dir;

  // <uldl_dir_fanout>: number of hashed subdirectories of download/ and upload/ (lib/work/fanout.h).
  int uldl_dir_fanout = 1024;
  // <max_upload_size>: largest file the upload handler accepts, bytes.
  int64_t max_upload_size = 128LL * 1024 * 1024;
  // <max_request_size>: largest scheduler request body accepted, bytes.
  int64_t max_request_size = 4LL * 1024 * 1024;

  // Scheduler knobs.
  int daily_result_quota = 500;  // <daily_result_quota>: results per host per day (BOINC's default)
  double request_delay = 0;      // <request_delay>: seconds a client must wait between RPCs
  int max_wus_to_send = 50;      // <max_wus_to_send>: jobs per scheduler reply at most

  // Reclustering.
  ReclusterPolicy recluster_policy = ReclusterPolicy::Noop;  // <recluster_policy>
  int initial_cluster_size = 1;                              // <initial_cluster_size>: k0 >= 1
  int cluster_active_host_minutes =
      10;                         // <cluster_active_host_minutes>: r counts hosts with an RPC this recent
  int cluster_window_jobs = 200;  // <cluster_window_jobs>: W, the estimator's sliding window
  int cluster_queue_jobs = 0;     // <cluster_queue_jobs>: unsent clustered jobs kept per app; 0 = 2r
  double cluster_task_time_prior = 5;     // <cluster_task_time_prior>: φ̄ (s) before any job finished
  double cluster_job_overhead_prior = 5;  // <cluster_job_overhead_prior>: D (s) before any job finished

  // Status pages.
  int census_interval = 60;  // <census_interval>: seconds between the census daemon's snapshots

  std::vector<DaemonConfig> daemons;  // <daemons>, in file order

  // Any other simple <tag>text</tag> element inside <config>, kept verbatim (trimmed) so a
  // component can read a knob this struct does not type yet, and so rendering keeps it.
  std::map<std::string, std::string> other;
};

// Parses config.xml text. On failure the message is one line starting with `source` (the
// file name to show), naming the element and what was expected and found, e.g.
//   "config.xml: <uldl_dir_fanout> expected a positive integer, found 'abc'"
//   "config.xml: missing required <master_url>, <db_name> in <config>"
//   "config.xml: malformed XML at offset 120 (line 5): Start-end tags mismatch"
// An element given twice, or an unknown element with child elements, is an error.
Result<ProjectConfig> parse_project_config(std::string_view xml, std::string_view source = "config.xml");

// Reads and parses the file at `path`; messages start with `path`. Then, when the
// environment has THARSIS_DB_NODE=I (a web server's SetEnv, a shell), select_db_node(I).
Result<ProjectConfig> load_project_config(const std::string& path);

// Points config.db at node `node` (1-based) of <db_nodes>, the others becoming its
// fall-backs in ring order (node+1, ..., N, 1, ..., node-1), so instances on different
// nodes also fail over to different nodes. Without <db_nodes> only node 1 (the one server)
// is valid. Errors name the node number and the count.
Status select_db_node(ProjectConfig& config, int node);

// Whether any <replica_db_*> element was given.
bool has_replica_db(const ProjectConfig& config);

// The database read-only queries should use: the replica's settings, each missing one
// taken from the primary (BOINC's rule); with no replica settings at all, config.db.
DbConfig replica_db_config(const ProjectConfig& config);

// Writes config.xml text (every field explicitly, defaults included; empty optional strings
// omitted) such that parse_project_config(render_project_config(c)) reproduces c.
std::string render_project_config(const ProjectConfig& config);

// The schedulers the master page lists, in order: <scheduler_urls>, or <cgi_url>cgi.
std::vector<std::string> project_scheduler_urls(const ProjectConfig& config);

}  // namespace tharsis
