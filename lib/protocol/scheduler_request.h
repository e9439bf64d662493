// The scheduler RPC request (<scheduler_request>) as the BOINC 7.20 client sends it
// (client/cs_scheduler.cpp make_scheduler_request), parsed into plain structs. Only what
// the scheduler uses is kept; preferences, coprocessors, logs and other extras are skipped
// without being interpreted. Every size is bounded by ProtocolLimits; a malformed,
// truncated, oversize or wrongly typed request is an error naming the element and line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/protocol/protocol_limits.h"
#include "lib/result.h"

namespace tharsis {

struct ClientVersion {
  int major = 0, minor = 0, release = 0;
  // BOINC's core_client_version number: 10000*major + 100*minor + release (7.20.2 -> 72002).
  int number() const { return 10000 * major + 100 * minor + release; }
  bool operator==(const ClientVersion&) const = default;
};

// <host_info>
struct HostInfo {
  int timezone = 0;  // seconds east of UTC
  std::string domain_name, ip_addr, host_cpid;
  int p_ncpus = 0;
  std::string p_vendor, p_model, p_features;
  double p_fpops = 0, p_iops = 0, p_membw = 0, p_calculated = 0;
  double m_nbytes = 0, m_cache = 0, m_swap = 0;
  double d_total = 0, d_free = 0;
  std::string os_name, os_version, product_name;
  int n_usable_coprocs = 0;
  bool operator==(const HostInfo&) const = default;
};

// <time_stats> (fractions of time the client is on, connected, allowed to compute)
struct TimeStats {
  double on_frac = 0, connected_frac = 0, cpu_and_network_available_frac = 0, active_frac = 0,
         gpu_active_frac = 0, client_start_time = 0, now = 0, previous_uptime = 0;
  bool operator==(const TimeStats&) const = default;
};

// <net_stats> (bytes/s)
struct NetStats {
  double bwup = 0, avg_up = 0, avg_time_up = 0, bwdown = 0, avg_down = 0, avg_time_down = 0;
  bool operator==(const NetStats&) const = default;
};

// <disk_usage>
struct DiskUsage {
  double d_boinc_used_total = 0, d_boinc_used_project = 0, d_project_share = 0;
  bool operator==(const DiskUsage&) const = default;
};

// An uploaded output file of a reported result (<file_info> inside <result>).
struct ReportedFile {
  std::string name;
  double nbytes = 0, max_nbytes = 0;
  std::string md5_cksum;
  bool operator==(const ReportedFile&) const = default;
};

// A finished result the client reports (<result>). `state` is the client state
// (BOINC's RESULT_* codes, e.g. 5 = files uploaded, 3 = compute error, 6 = aborted).
struct ReportedResult {
  std::string name;
  int state = 0;
  double final_cpu_time = 0, final_elapsed_time = 0;
  int exit_status = 0;
  std::string platform, plan_class;
  int version_num = 0;      // version of the app version that ran it
  int app_version_num = 0;  // the workunit's version_num (BOINC sends both)
  double peak_working_set_size = 0, peak_swap_size = 0, peak_disk_usage = 0;
  double fpops_cumulative = 0;
  std::string stderr_out;  // text of <stderr_out> without <core_client_version>
  bool stderr_truncated = false;
  std::string core_client_version;  // "7.20.2", from inside <stderr_out>
  std::vector<ReportedFile> output_files;
  bool operator==(const ReportedResult&) const = default;
};

// A result the client still holds (<other_results><other_result>), for resending lost ones.
struct OtherResult {
  std::string name;
  int app_version = -1;  // index into the request's <app_versions>, -1 if absent
  std::string plan_class;
  bool operator==(const OtherResult&) const = default;
};

// <in_progress_results><ip_result> (sent only when the project asked for the workload)
struct InProgressResult {
  std::string name;
  double report_deadline = 0, time_remaining = 0, avg_ncpus = 0;
  bool operator==(const InProgressResult&) const = default;
};

// A sticky file the client holds (top-level <file_info>), for locality scheduling.
struct HeldFile {
  std::string name;
  double nbytes = 0;
  int status = 0;  // 1 = present
  bool operator==(const HeldFile&) const = default;
};

// An app version the client has (<app_versions><app_version>), in request order.
struct ClientAppVersion {
  std::string app_name;
  int version_num = 0;
  std::string platform, plan_class;
  bool operator==(const ClientAppVersion&) const = default;
};

struct SchedulerRequest {
  std::string authenticator;
  int64_t hostid = 0;  // 0: new host
  int rpc_seqno = 0;
  ClientVersion core_client;
  std::string platform_name;               // "anonymous" for anonymous-platform clients
  std::vector<std::string> alt_platforms;  // in the client's order of preference
  double work_req_seconds = 0, cpu_req_secs = 0, cpu_req_instances = 0, estimated_delay = 0;
  double resource_share_fraction = 1, rrs_fraction = 1, prrs_fraction = 1;
  double duration_correction_factor = 1;
  bool dont_send_work = false;
  std::string cross_project_id, client_brand;
  std::string code_sign_key;  // the key the client has from us, whitespace-trimmed
  HostInfo host;
  TimeStats time_stats;
  NetStats net_stats;
  DiskUsage disk_usage;
  std::vector<ReportedResult> results;  // duplicates (same name) dropped, first kept
  bool have_other_results = false;      // <other_results> present (even if empty)
  std::vector<OtherResult> other_results;
  bool have_in_progress_results = false;
  std::vector<InProgressResult> in_progress_results;
  std::vector<HeldFile> held_files;
  std::vector<ClientAppVersion> app_versions;
  bool operator==(const SchedulerRequest&) const = default;
};

// Parses a request. Unknown elements are skipped; known ones with a wrong type, or any
// field over its limit, fail the whole request (the scheduler answers with an error reply).
// Results without a name are an error; stderr over the limit is cut (truncate_stderr) or
// an error.
Result<SchedulerRequest> parse_scheduler_request(std::string_view xml, const ProtocolLimits& limits);

}  // namespace tharsis
