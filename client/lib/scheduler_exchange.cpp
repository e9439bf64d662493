// Implementation of client/lib/scheduler_exchange.h.
#include "client/lib/scheduler_exchange.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "client/lib/client_errors.h"
#include "lib/protocol/xml_text.h"

namespace tharsis {
namespace {

bool unfinished(const ClientResult& r) {
  return r.state != TaskState::Done && r.state != TaskState::Reported;
}

int unfinished_count(const HostState& state) {
  return static_cast<int>(std::count_if(state.results.begin(), state.results.end(), unfinished));
}

bool has_report(const HostState& state) {
  return std::any_of(state.results.begin(), state.results.end(),
                     [](const ClientResult& r) { return r.state == TaskState::Done; });
}

double backoff(const RpcPolicy& policy, int failures) {
  if (failures <= 0) return 0;
  return std::min(policy.max_backoff, policy.min_backoff * std::pow(2.0, std::min(failures - 1, 30)));
}

std::vector<ClientFileRef> refs_from(const std::vector<ReplyFileRef>& refs) {
  std::vector<ClientFileRef> out;
  for (const auto& r : refs) out.push_back({r.file_name, r.open_name, r.main_program, r.copy_file});
  return out;
}

void add_file(HostState& state, const ReplyFileInfo& info) {
  if (ClientFile* known = state.file(info.name)) {
    // A resend may carry a fresh upload certificate; keep what we have otherwise.
    if (!info.xml_signature.empty()) known->xml_signature = info.xml_signature;
    return;
  }
  ClientFile f;
  f.name = info.name;
  f.download_urls = info.download_urls;
  f.upload_urls = info.upload_urls;
  f.md5_cksum = info.md5_cksum;
  f.nbytes = info.nbytes;
  f.max_nbytes = info.max_nbytes;
  f.executable = info.executable;
  f.file_signature = info.file_signature;
  f.xml_signature = info.xml_signature;
  state.files.push_back(std::move(f));
}

// Drops Reported results, then workunits no result needs, then files nothing refers to
// (app version files are kept: the next workunit of that app needs them).
void forget_reported(HostState& state, ReplyEffects& effects) {
  std::erase_if(state.results, [](const ClientResult& r) { return r.state == TaskState::Reported; });
  std::set<std::string> live_workunits, live_files;
  for (const auto& r : state.results) {
    live_workunits.insert(r.wu_name);
    for (const auto& ref : r.file_refs) live_files.insert(ref.file_name);
  }
  std::erase_if(state.workunits, [&](const ClientWorkunit& w) { return !live_workunits.count(w.name); });
  for (const auto& w : state.workunits) {
    for (const auto& ref : w.file_refs) live_files.insert(ref.file_name);
  }
  for (const auto& v : state.app_versions) {
    for (const auto& ref : v.file_refs) live_files.insert(ref.file_name);
  }
  std::erase_if(state.files, [&](const ClientFile& f) {
    if (live_files.count(f.name)) return false;
    effects.files_to_delete.push_back(f.name);
    return true;
  });
}

void abort_result(ClientResult& r, ReplyEffects& effects) {
  if (r.state == TaskState::Running && r.pid > 0) effects.pids_to_kill.push_back(r.pid);
  r.state = TaskState::Done;
  r.report_state = kReportAborted;
  r.exit_status = kErrAbortedByProject;
  r.pid = 0;
  r.stderr_text += "aborted by the project\n";
  ++effects.aborted;
}

}  // namespace

Result<std::vector<std::string>> find_scheduler_urls(std::string_view page) {
  std::vector<std::string> urls;
  auto add = [&urls](std::string_view url) {
    if (!url.empty() && std::find(urls.begin(), urls.end(), url) == urls.end()) urls.emplace_back(url);
  };
  constexpr std::string_view kOpen = "<scheduler>", kClose = "</scheduler>";
  for (auto open = page.find(kOpen); open != std::string_view::npos; open = page.find(kOpen, open + 1)) {
    auto start = open + kOpen.size();
    auto close = page.find(kClose, start);
    if (close == std::string_view::npos) break;
    add(trim_xml_space(page.substr(start, close - start)));
  }
  for (auto at = page.find("<link"); at != std::string_view::npos; at = page.find("<link", at + 1)) {
    auto end = page.find('>', at);
    if (end == std::string_view::npos) break;
    auto tag = page.substr(at, end - at);
    if (tag.find("boinc_scheduler") == std::string_view::npos) continue;
    auto href = tag.find("href=\"");
    if (href == std::string_view::npos) continue;
    auto start = href + 6;
    auto quote = tag.find('"', start);
    if (quote != std::string_view::npos) add(tag.substr(start, quote - start));
  }
  if (urls.empty()) {
    return make_error(
        "master page: expected <scheduler>URL</scheduler> or <link rel=\"boinc_scheduler\" href=...>, "
        "found neither");
  }
  return urls;
}

void set_schedulers(HostState& state, std::vector<std::string> urls) {
  state.scheduler_urls = std::move(urls);
  if (state.scheduler_urls.empty()) {
    state.scheduler_url.clear();
    return;
  }
  // FNV-1a of the host's id: stable across runs, spread evenly.
  uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : state.host_cpid) hash = (hash ^ c) * 1099511628211ULL;
  state.scheduler_url = state.scheduler_urls[hash % state.scheduler_urls.size()];
}

double work_request_seconds(const HostState& state, const HostDescription& host, const RpcPolicy& policy) {
  int missing = policy.buffer_tasks_per_cpu * std::max(1, host.ncpus) - unfinished_count(state);
  if (missing <= 0) return 0;
  // A token amount brings exactly one result: the scheduler sends jobs until the sum of
  // their runtime/ncpus reaches the request, and the first job does. Before any workunit
  // tells us how long jobs run, that is all we ask for.
  constexpr double kToken = 1e-3;
  if (state.fpops_estimate <= 0) return kToken;
  double runtime = state.fpops_estimate / std::max(1.0, host.flops);
  // missing - 1 results' worth of the smallest job seen, plus a token for the last one:
  // `missing` jobs of that size, fewer of bigger ones (the next RPC asks again), and
  // exactly one when one is missing, however small the jobs the project now makes.
  return (missing - 1) * runtime / std::max(1, host.ncpus) + kToken;
}

bool wants_scheduler_rpc(const HostState& state, const HostDescription& host, const RpcPolicy& policy,
                         double now) {
  if (now < state.next_rpc_time) return false;
  return has_report(state) || work_request_seconds(state, host, policy) > 0;
}

SchedulerRequest build_scheduler_request(const HostState& state, const HostDescription& host,
                                         double work_req_seconds, double now) {
  SchedulerRequest req;
  req.authenticator = state.authenticator;
  req.hostid = state.hostid;
  req.rpc_seqno = state.rpc_seqno + 1;
  req.core_client = ClientVersion{7, 20, 2};
  req.platform_name = host.platform;
  req.work_req_seconds = work_req_seconds;
  req.cpu_req_secs = work_req_seconds;
  req.cpu_req_instances = work_req_seconds > 0 ? host.ncpus : 0;
  req.code_sign_key = state.code_sign_key;
  req.host.domain_name = host.domain_name;
  req.host.host_cpid = state.host_cpid;
  req.host.p_ncpus = host.ncpus;
  req.host.p_vendor = "Tharsis";
  req.host.p_model = "tharsis-client";
  req.host.p_fpops = host.flops;
  req.host.p_iops = host.flops;
  req.host.m_nbytes = host.memory_bytes;
  req.host.d_total = host.disk_total_bytes;
  req.host.d_free = host.disk_free_bytes;
  req.host.os_name = host.os_name;
  req.host.os_version = host.os_version;
  req.time_stats = TimeStats{1, 1, 1, 1, 0, 0, now, 0};
  req.have_other_results = true;
  for (const auto& v : state.app_versions)
    req.app_versions.push_back({v.app_name, v.version_num, v.platform, v.plan_class});
  for (const auto& r : state.results) {
    if (r.state == TaskState::Reported) continue;
    if (r.state != TaskState::Done) {
      req.other_results.push_back({r.name, -1, r.plan_class});
      continue;
    }
    ReportedResult report;
    report.name = r.name;
    report.state = r.report_state;
    report.exit_status = r.exit_status;
    report.final_cpu_time = r.cpu_time;
    report.final_elapsed_time = r.elapsed;
    report.platform = r.platform;
    report.plan_class = r.plan_class;
    report.version_num = r.version_num;
    report.app_version_num = r.version_num;
    report.core_client_version = "7.20.2";
    report.stderr_out = r.stderr_text;
    if (r.report_state == kReportUploaded) {
      for (const auto& ref : r.file_refs) {
        const ClientFile* f = state.file(ref.file_name);
        if (f) report.output_files.push_back({f->name, f->nbytes, f->max_nbytes, f->md5_cksum});
      }
    }
    req.results.push_back(std::move(report));
  }
  return req;
}

ReplyEffects apply_scheduler_reply(HostState& state, const SchedulerReply& reply, const RpcPolicy& policy,
                                   double now) {
  ReplyEffects effects;
  for (const auto& m : reply.messages) effects.messages.push_back(m.text);
  ++state.rpc_seqno;
  if (!reply.project_name.empty()) state.project_name = reply.project_name;
  if (reply.hostid > 0) state.hostid = reply.hostid;
  if (state.code_sign_key.empty() && !reply.code_sign_key.empty()) {
    state.code_sign_key = std::string(trim_xml_space(reply.code_sign_key));
  }
  for (const auto& name : reply.result_acks) {
    ClientResult* r = state.result(name);
    if (r && r->state == TaskState::Done) {
      r->state = TaskState::Reported;
      ++effects.acked;
    }
  }
  for (const auto& name : reply.result_aborts) {
    ClientResult* r = state.result(name);
    if (r && r->state != TaskState::Done && r->state != TaskState::Reported) abort_result(*r, effects);
  }
  for (const auto& name : reply.result_aborts_if_not_started) {
    ClientResult* r = state.result(name);
    if (r && (r->state == TaskState::Downloading || r->state == TaskState::Ready)) abort_result(*r, effects);
  }
  for (const auto& f : reply.file_infos) add_file(state, f);
  for (const auto& v : reply.app_versions) {
    if (state.app_version(v.app_name, v.version_num)) continue;
    state.app_versions.push_back(
        {v.app_name, v.version_num, v.platform, v.plan_class, v.cmdline, refs_from(v.file_refs)});
  }
  for (const auto& w : reply.workunits) {
    if (state.workunit(w.name)) continue;
    state.workunits.push_back(
        {w.name, w.app_name, w.version_num, w.command_line, w.rsc_fpops_est, refs_from(w.file_refs)});
    // The smallest job seen sizes requests: asked in seconds, the scheduler sends jobs
    // until their estimates fill the request, so a request sized by a big job brings
    // many small ones (clustered jobs shrink from k0 to 1) to this one host while others
    // idle. Sized by the smallest, a request brings at most the results missing, or
    // fewer and the next RPC asks again.
    if (w.rsc_fpops_est > 0 && (state.fpops_estimate <= 0 || w.rsc_fpops_est < state.fpops_estimate)) {
      state.fpops_estimate = w.rsc_fpops_est;
    }
  }
  for (const auto& r : reply.results) {
    if (state.result(r.name)) continue;
    ClientResult result;
    result.name = r.name;
    result.wu_name = r.wu_name;
    result.platform = r.platform;
    result.plan_class = r.plan_class;
    result.version_num = r.version_num;
    result.report_deadline = r.report_deadline;
    result.received_time = now;
    result.file_refs = refs_from(r.file_refs);
    state.results.push_back(std::move(result));
    ++effects.new_results;
  }
  forget_reported(state, effects);

  // Productive (reported or got work): no back-off; otherwise back off, doubling.
  bool productive = effects.acked > 0 || effects.new_results > 0 || effects.aborted > 0;
  state.rpc_failures = productive ? 0 : state.rpc_failures + 1;
  double delay = std::min(reply.request_delay.value_or(0), policy.max_request_delay);
  if (reply.project_is_down) delay = std::max(delay, backoff(policy, std::max(1, state.rpc_failures)));
  state.next_rpc_time = now + std::max(delay, backoff(policy, state.rpc_failures));
  return effects;
}

void note_failed_rpc(HostState& state, const RpcPolicy& policy, double now) {
  const auto& urls = state.scheduler_urls;
  if (urls.size() > 1) {
    auto current = std::find(urls.begin(), urls.end(), state.scheduler_url);
    size_t next = current == urls.end() ? 0 : static_cast<size_t>(current - urls.begin() + 1) % urls.size();
    state.scheduler_url = urls[next];
  }
  ++state.rpc_failures;
  state.next_rpc_time = now + backoff(policy, state.rpc_failures);
}

}  // namespace tharsis
