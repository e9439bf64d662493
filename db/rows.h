// Typed row structs, one per table of db/schema.sql. Field names are BOINC's column
// names; the state fields use the enums of db/states.h. Plain data: the pure rule
// functions of the daemons take and return these, and the stores in db/ read and write
// them.
#pragma once

#include <cstdint>
#include <string>

#include "db/states.h"

namespace tharsis {

struct WorkunitRow {
  int64_t id = 0;
  int64_t create_time = 0;
  int64_t appid = 0;
  std::string name;
  std::string xml_doc;  // input file descriptions (file_info / file_ref), BOINC's wu xml_doc
  int batch = 0;
  // Resource bounds.
  double rsc_fpops_est = 0;
  double rsc_fpops_bound = 0;
  double rsc_memory_bound = 0;
  double rsc_disk_bound = 0;
  // Replication parameters.
  int delay_bound = 0;  // seconds
  int min_quorum = 1;
  int target_nresults = 1;
  int max_error_results = 3;
  int max_total_results = 10;
  int max_success_results = 6;
  int priority = 0;
  // State variables of the law.
  int64_t canonical_resultid = 0;
  int64_t transition_time = 0;
  FileDeleteState file_delete_state = FileDeleteState::Init;
  AssimilateState assimilate_state = AssimilateState::Init;
  bool need_validate = false;
  int error_mask = 0;
  double canonical_credit = 0;
  std::string result_template_file;
  // Operand graph membership (0 when the workunit is a plain job).
  int64_t graph_id = 0;
};

struct ResultRow {
  int64_t id = 0;
  int64_t create_time = 0;
  int64_t workunitid = 0;
  int64_t appid = 0;
  std::string name;
  // State variables of the law.
  ServerState server_state = ServerState::Unsent;
  Outcome outcome = Outcome::Init;
  ClientState client_state = ClientState::New;
  FileDeleteState file_delete_state = FileDeleteState::Init;
  ValidateState validate_state = ValidateState::Init;
  int64_t report_deadline = 0;
  // Who ran it and what came back.
  int64_t hostid = 0;
  int64_t userid = 0;
  int64_t sent_time = 0;
  int64_t received_time = 0;
  int64_t app_version_id = 0;
  int exit_status = 0;
  double cpu_time = 0;
  double elapsed_time = 0;
  std::string xml_doc_in;   // output file templates sent to the client
  std::string xml_doc_out;  // output file descriptions the client reported
  // (The client's stderr_out is in table result_stderr: fetch_result_stderr.)
  double claimed_credit = 0;
  double granted_credit = 0;
  int random = 0;  // spreads sends over workunits
  int priority = 0;
};

// A volunteer account (table user); the scheduler finds it by authenticator.
struct UserRow {
  int64_t id = 0;
  int64_t create_time = 0;
  std::string email_addr;
  std::string name;
  std::string authenticator;
  std::string cross_project_id;
  double total_credit = 0;
  double expavg_credit = 0;
  double expavg_time = 0;
};

// A volunteer machine (table host), created at its first scheduler RPC and updated at
// each. nresults_today counts results sent on day nresults_day (unix time / 86400).
struct HostRow {
  int64_t id = 0;
  int64_t create_time = 0;
  int64_t userid = 0;
  int rpc_seqno = 0;
  int64_t rpc_time = 0;
  double total_credit = 0;
  double expavg_credit = 0;
  double expavg_time = 0;
  std::string domain_name;
  std::string host_cpid;
  std::string platform_name;
  int p_ncpus = 0;
  std::string p_vendor;
  std::string p_model;
  double p_fpops = 0;
  double p_iops = 0;
  std::string os_name;
  std::string os_version;
  double m_nbytes = 0;
  double m_swap = 0;
  double d_total = 0;
  double d_free = 0;
  int nresults_today = 0;
  int64_t nresults_day = 0;
  int max_results_day = 0;  // 0 = the project's default quota
  double error_rate = 0;
};

// A submitted operand graph (table graph).
struct GraphRow {
  int64_t id = 0;
  int64_t create_time = 0;
  std::string name;
  GraphState state = GraphState::Running;
  std::string expression;   // what the submitter handed in
  std::string result_path;  // where submit_graph --wait writes the result
  int64_t finish_time = 0;
  int64_t user_id = 0;  // the submitter (0: submitted on the server by an admin)
};

// One chunk operand of a graph (table operand); see db/schema.sql for each column.
struct OperandRow {
  int64_t id = 0;
  int64_t graph_id = 0;
  std::string name;
  int64_t workunitid = 0;  // the current run's workunit
  int runs = 0;
  OperandState state = OperandState::Unscheduled;
  int64_t state_time = 0;
  int depth = 0;
  int priority = 0;
  int64_t output_bytes = 0;
  int64_t preferred_host = 0;
  int64_t preferred_until = 0;
  std::string output_file;
  std::string output_md5;
  int64_t output_nbytes = 0;
  int64_t output_host = 0;
  int result_chunk = -1;
  std::string spec;
};

// A task of a clustered job (table cluster_task; docs/reclustering.md).
struct ClusterTaskRow {
  int64_t id = 0;
  int64_t workunitid = 0;  // the job carrying it (IN_JOB) or that did it (DONE); 0 WAITING
  std::string task_key;    // the submitter's name for it, unique per app
  int task_index = 0;
  ClusterTaskState state = ClusterTaskState::Waiting;
  int attempts = 0;  // jobs it has been put in
  int64_t appid = 0;
  std::string payload;   // its input line for the app
  int64_t retry_of = 0;  // WAITING after a failure: the job it failed in (regroup key)
  std::string output;    // DONE: what the app reported for it
  int64_t done_time = 0;
  int64_t user_id = 0;  // the submitter (0: submitted on the server by an admin)
};

// A clustered job: the workunit carrying k tasks, and how it ended (table cluster_job).
struct ClusterJobRow {
  int64_t workunitid = 0;
  int64_t appid = 0;
  int k = 0;
  int64_t create_time = 0;
  ClusterJobState state = ClusterJobState::Live;
  int failed_tasks = 0;
  bool job_failed = false;  // no usable result: all k tasks lost at once
  double run_time = 0;      // seconds the host computed (canonical result's elapsed time)
  double turnaround = 0;    // seconds from the canonical result's send to its report
  int64_t settle_time = 0;
};

// One estimate of an app's failure rates and the cluster size chosen from it.
struct FailureStatRow {
  int64_t id = 0;
  int64_t appid = 0;
  int64_t time = 0;
  int jobs = 0, tasks = 0, failed_jobs = 0, failed_tasks = 0;  // the window
  double alpha = 0, beta = 0;
  int cluster_size = 1;
  std::string model;   // "TFM" / "JFM"
  std::string policy;  // "NOOP" .. "DR"
  int64_t tasks_left = 0;
  int64_t hosts = 0;
  double task_time = 0;
  double job_overhead = 0;
};

}  // namespace tharsis
