// The scheduler RPC reply (<scheduler_reply>) as typed structs, and its rendering in the
// shape the BOINC 7.20 client parses (client/scheduler_op.cpp SCHEDULER_REPLY::parse):
// element names, <tag/> booleans, raw hex for keys and signatures, every other string
// XML-escaped. The scheduler fills a SchedulerReply; nothing else writes reply XML.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tharsis {

// Message priorities the client knows: "notice" becomes a notice in the manager, the
// others go to the event log.
enum class MessagePriority { Low, High, Notice };
const char* message_priority_name(MessagePriority priority);

struct ReplyMessage {
  MessagePriority priority = MessagePriority::Low;
  std::string text;
  bool operator==(const ReplyMessage&) const = default;
};

// The account, sent when the request authenticated (<userid>, <user_name>, ...).
struct ReplyUser {
  int64_t userid = 0;
  std::string name;
  double total_credit = 0, expavg_credit = 0;
  int64_t create_time = 0;
  std::string cross_project_id;  // with external_cpid; both empty: not sent
  std::string external_cpid;
  std::string email_hash;
  int64_t teamid = 0;
  std::string team_name;
  bool operator==(const ReplyUser&) const = default;
};

struct ReplyApp {
  std::string name, user_friendly_name;
  bool non_cpu_intensive = false;
  bool operator==(const ReplyApp&) const = default;
};

// <file_ref> inside <app_version>, <workunit> or <result>.
struct ReplyFileRef {
  std::string file_name;
  std::string open_name;  // empty: not sent
  bool main_program = false, copy_file = false, optional = false;
  bool operator==(const ReplyFileRef&) const = default;
};

// <file_info>: an input/app file to download (download_urls, md5, nbytes, for app files a
// file_signature), or an output file to upload (upload_urls, max_nbytes, xml_signature =
// the upload certificate over "<name>N</name><max_nbytes>M</max_nbytes>").
struct ReplyFileInfo {
  std::string name;
  std::vector<std::string> download_urls;  // rendered as <url>
  std::vector<std::string> upload_urls;    // rendered as <upload_url>
  std::string md5_cksum;
  double nbytes = 0;      // 0: not sent
  double max_nbytes = 0;  // 0: not sent
  bool executable = false, sticky = false, no_delete = false;
  std::string file_signature;  // BOINC hex text; not escaped (hex only)
  std::string xml_signature;   // BOINC hex text; not escaped (hex only)
  bool operator==(const ReplyFileInfo&) const = default;
};

struct ReplyAppVersion {
  std::string app_name;
  int version_num = 0;
  std::string platform, plan_class, api_version;
  double avg_ncpus = 1;
  double flops = 0;  // estimated FLOPS on this host; 0: not sent
  std::string cmdline;
  std::vector<ReplyFileRef> file_refs;  // one with main_program
  bool operator==(const ReplyAppVersion&) const = default;
};

struct ReplyWorkunit {
  std::string name, app_name;
  int version_num = 0;  // 0: not sent
  std::string command_line;
  double rsc_fpops_est = 0, rsc_fpops_bound = 0, rsc_memory_bound = 0, rsc_disk_bound = 0;
  std::vector<ReplyFileRef> file_refs;  // inputs with open_name
  bool operator==(const ReplyWorkunit&) const = default;
};

struct ReplyResult {
  std::string name, wu_name;
  int64_t report_deadline = 0;  // Unix time
  std::string platform, plan_class;
  int version_num = 0;
  bool report_immediately = false;
  std::vector<ReplyFileRef> file_refs;  // outputs with open_name
  bool operator==(const ReplyResult&) const = default;
};

struct SchedulerReply {
  int scheduler_version = 720;  // BOINC's major*100+minor of the server version we mimic
  std::string master_url;
  std::string project_name;
  std::optional<double> request_delay;  // seconds before the client may call again
  std::optional<double> next_rpc_delay;
  std::vector<ReplyMessage> messages;
  bool project_is_down = false;  // true: only the header is rendered
  std::optional<ReplyUser> user;
  int64_t hostid = 0;  // 0: not sent
  double host_total_credit = 0, host_expavg_credit = 0;
  std::string host_venue;
  int64_t host_create_time = 0;
  bool include_host_fields = false;      // render the host_* credit fields
  std::vector<std::string> result_acks;  // names of reported results we took
  std::vector<std::string> result_aborts;
  std::vector<std::string> result_aborts_if_not_started;
  std::vector<ReplyApp> apps;
  std::vector<ReplyFileInfo> file_infos;
  std::vector<ReplyAppVersion> app_versions;
  std::vector<ReplyWorkunit> workunits;
  std::vector<ReplyResult> results;
  std::string code_sign_key;  // BOINC key text; empty: not sent
  std::string code_sign_key_signature;
  std::vector<std::string> file_deletes;  // <delete_file_info> (sticky files to drop)
  bool dont_use_dcf = true;               // 7.x clients: no duration correction factor
  bool send_full_workload = false;        // ask for <in_progress_results> next time
  bool operator==(const SchedulerReply&) const = default;
};

// The reply document, starting at <scheduler_reply> (the CGI layer writes the
// Content-type header).
std::string render_scheduler_reply(const SchedulerReply& reply);

// A well-formed reply for a request we could not handle (malformed, unknown account...):
// one message and a request_delay so the client backs off.
SchedulerReply make_error_reply(std::string project_name, std::string message, double request_delay,
                                MessagePriority priority = MessagePriority::High);

}  // namespace tharsis
