// What tharsis-client knows about its one project and host, kept in
// <data_dir>/client_state.xml (BOINC's client_state.xml in spirit, our own layout):
// account and host identity, the RPC bookkeeping, and every file, app version, workunit
// and result the scheduler sent, with each result's progress. The file is rewritten
// atomically (temp file + rename) after every change, so a client killed at any instant
// restarts from its last consistent state and carries on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/result.h"

namespace tharsis {

// A file of an app version or workunit (downloaded) or of a result (generated, uploaded).
struct ClientFile {
  enum class Status : int { Missing = 0, Present = 1, Uploaded = 2, Failed = -1 };
  std::string name;
  std::vector<std::string> download_urls;
  std::vector<std::string> upload_urls;
  std::string md5_cksum;
  double nbytes = 0, max_nbytes = 0;
  bool executable = false;
  std::string file_signature;  // code signature (executables)
  std::string xml_signature;   // upload certificate (outputs)
  Status status = Status::Missing;
  int failures = 0;             // transfer attempts that failed
  double next_attempt = 0;      // back-off: no transfer before this time
  bool upload_started = false;  // an upload was tried: resume at the server's size
  std::string error;            // why the last attempt failed (why it Failed, once Failed)
  bool operator==(const ClientFile&) const = default;
};

struct ClientFileRef {
  std::string file_name, open_name;
  bool main_program = false, copy_file = false;
  bool operator==(const ClientFileRef&) const = default;
};

struct ClientAppVersionRecord {
  std::string app_name;
  int version_num = 0;
  std::string platform, plan_class, cmdline;
  std::vector<ClientFileRef> file_refs;
  bool operator==(const ClientAppVersionRecord&) const = default;
};

struct ClientWorkunit {
  std::string name, app_name;
  int version_num = 0;
  std::string command_line;
  double rsc_fpops_est = 0;
  std::vector<ClientFileRef> file_refs;  // inputs
  bool operator==(const ClientWorkunit&) const = default;
};

// A result's progress on this client.
enum class TaskState : int {
  Downloading = 0,  // waiting for its app version and input files
  Ready = 1,        // everything present; not running
  Running = 2,      // a child process is computing it
  Uploading = 3,    // computed; outputs being uploaded
  Done = 4,         // finished (success or error): to report
  Reported = 5,     // acknowledged by the scheduler; forgotten at the next save
};
std::string_view task_state_name(TaskState state);

// BOINC's client result states as reported in <state> (docs/protocol.md). A failed
// transfer is reported in the state it failed in, as BOINC's client does (its
// report_result_error leaves a result that could not download in FILES_DOWNLOADING):
// the server tells a lost input from a failed run by it (the graph scheduler stages an
// operand's inputs again, or reruns their producers, only for a DOWNLOADING error).
inline constexpr int kReportDownloading = 1;
inline constexpr int kReportComputeError = 3;
inline constexpr int kReportUploading = 4;
inline constexpr int kReportUploaded = 5;
inline constexpr int kReportAborted = 6;

struct ClientResult {
  std::string name, wu_name, platform, plan_class;
  int version_num = 0;
  int64_t report_deadline = 0;
  double received_time = 0;  // wall time the scheduler sent it (0: unknown); gives the delay bound
  std::vector<ClientFileRef> file_refs;  // outputs
  TaskState state = TaskState::Downloading;
  int report_state = 0;    // BOINC state sent when Done
  int exit_status = 0;     // 0, the app's exit code, or a negative client error code
  int restarts = 0;        // process crashes survived
  int runs = 0;            // processes started (each run gets its own slot directory)
  int pid = 0;             // of the running process (meaningful only while Running)
  double run_started = 0;  // wall time the current run started
  double elapsed = 0, cpu_time = 0;
  double hold_until = 0;    // a slow host's result stays Running until then
  std::string stderr_text;  // what the client says about this result, and the app's stderr tail
  bool operator==(const ClientResult&) const = default;
};

struct HostState {
  std::string project_url, scheduler_url, authenticator;  // scheduler_url: the one in use
  std::vector<std::string> scheduler_urls;  // every scheduler the master page lists (one may be empty)
  std::string project_name;
  int64_t hostid = 0;
  int rpc_seqno = 0;
  std::string host_cpid;
  std::string code_sign_key;  // BOINC key text, trimmed; the first one the project sent
  double next_rpc_time = 0;   // request_delay / back-off: no RPC before this
  int rpc_failures = 0;       // consecutive failed or empty RPCs, for back-off
  double fpops_estimate = 0;  // smallest rsc_fpops_est of the workunits received: sizes work requests
  std::vector<ClientFile> files;
  std::vector<ClientAppVersionRecord> app_versions;
  std::vector<ClientWorkunit> workunits;
  std::vector<ClientResult> results;
  bool operator==(const HostState&) const = default;

  ClientFile* file(std::string_view name);
  const ClientFile* file(std::string_view name) const;
  const ClientAppVersionRecord* app_version(std::string_view app_name, int version_num) const;
  const ClientWorkunit* workunit(std::string_view name) const;
  ClientResult* result(std::string_view name);
};

std::string render_client_state(const HostState& state);
// Reads what render_client_state wrote; a malformed file is an error naming the element.
Result<HostState> parse_client_state(std::string_view xml);

// <data_dir>/client_state.xml; load of a missing file gives an empty state.
Result<HostState> load_client_state(const std::string& data_dir);
Status save_client_state(const std::string& data_dir, const HostState& state);

}  // namespace tharsis
