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
  std::string stderr_out;
  double claimed_credit = 0;
  double granted_credit = 0;
  int random = 0;           // spreads sends over workunits
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

}  // namespace tharsis
