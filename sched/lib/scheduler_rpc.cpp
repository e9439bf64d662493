// Implementation of sched/lib/scheduler_rpc.h.
#include "sched/lib/scheduler_rpc.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "db/host_store.h"
#include "db/result_store.h"
#include "db/send_store.h"
#include "db/user_store.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/log.h"
#include "lib/protocol/scheduler_request.h"
#include "lib/protocol/utf8.h"
#include "lib/protocol/xml_text.h"
#include "sched/lib/host_identity.h"
#include "sched/lib/result_acceptance.h"
#include "sched/lib/stored_descriptions.h"
#include "sched/lib/work_selection.h"

namespace tharsis {
namespace {

constexpr int kClientStateUploaded = 5;  // BOINC's RESULT_FILES_UPLOADED
constexpr int kFirstCandidates = 16;
constexpr int kCandidatesPerRequest = 200;
constexpr int kClaimRounds = 16;  // each round drops the results lost to a concurrent request

std::string without_whitespace(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

// BOINC key texts compared as the keys they stand for (the client strips and re-wraps
// the text it stores). An empty request key never matches: the client has none yet.
bool same_key_text(const std::string& from_client, const std::string& ours) {
  if (from_client.empty()) return false;
  if (without_whitespace(from_client) == without_whitespace(ours)) return true;  // the usual case, no parsing
  auto theirs = parse_boinc_public_key(from_client, "client's code_sign_key");
  auto mine = parse_boinc_public_key(ours, "code_sign_public");
  return theirs.ok() && mine.ok() && same_public_key(*theirs, *mine);
}

SchedulerReply base_reply(const SchedulerContext& ctx) {
  SchedulerReply reply;
  reply.master_url = ctx.config.master_url;
  reply.project_name = ctx.config.long_name.empty() ? ctx.config.name : ctx.config.long_name;
  reply.request_delay = ctx.config.request_delay;
  return reply;
}

// What a host's VARCHAR(254) text columns hold: the parser made the text valid UTF-8, and
// longer text (os_version may be 8 KiB) is cut at a character boundary instead of failing
// the RPC (MariaDB's strict mode refuses an over-long value, error 1406).
constexpr size_t kHostTextChars = 254;
std::string host_text(const std::string& text) {
  return std::string(utf8_prefix_chars(text, kHostTextChars));
}

// Step 3: the host this request comes from (locked), with the request's description of
// it; id 0 when it is new. A request naming this account's host with a lower rpc_seqno
// than stored comes from a copy of that host's client state (host_identity.h): it gets a
// new record, and the named host is neither written nor credited with its reports.
HostRow find_host(Database& db, const SchedulerRequest& req, const UserRow& user, int64_t now) {
  std::optional<HostRow> host;
  bool copied_state = false;
  if (req.hostid > 0) {
    host = fetch_host(db, req.hostid, /*for_update=*/true);
    if (host && host->userid != user.id) host.reset();  // not this account's host
    if (host && judge_rpc_seqno(req.rpc_seqno, host->rpc_seqno) == SeqnoVerdict::CopiedState) {
      log_info("host ", host->id, ": rpc_seqno ", req.rpc_seqno, " below the stored ", host->rpc_seqno,
               " (a copy of its client state); creating a new host");
      host.reset();
      copied_state = true;  // the copy has the original's CPID: looking it up would find the original
    }
  }
  // Locked either way: concurrent requests of one host take their reports one after the
  // other. The RPC's one write of the row (update_host) leaves the validator's credit alone.
  std::string cpid = host_text(req.host.host_cpid);
  if (!host && !copied_state && !cpid.empty()) {
    host = fetch_host_by_cpid(db, user.id, cpid, /*for_update=*/true);
  }
  HostRow h = host.value_or(HostRow{});
  h.userid = user.id;
  // The reply announces every host id but the one the request named (handle_scheduler_request).
  h.rpc_seqno = rpc_seqno_to_store(req.rpc_seqno, h.id == 0 || h.id != req.hostid);
  h.rpc_time = now;
  h.domain_name = host_text(req.host.domain_name);
  h.host_cpid = cpid;
  h.platform_name = host_text(req.platform_name);
  h.p_ncpus = req.host.p_ncpus;
  h.p_vendor = host_text(req.host.p_vendor);
  h.p_model = host_text(req.host.p_model);
  h.p_fpops = req.host.p_fpops;
  h.p_iops = req.host.p_iops;
  h.os_name = host_text(req.host.os_name);
  h.os_version = host_text(req.host.os_version);
  h.m_nbytes = req.host.m_nbytes;
  h.m_swap = req.host.m_swap;
  h.d_total = req.host.d_total;
  h.d_free = req.host.d_free;
  if (h.nresults_day != static_cast<int>(now / 86400)) h.nresults_today = 0;  // a new day's quota
  return h;
}

std::string reported_files_xml(const ReportedResult& reported) {
  std::ostringstream xml;
  for (const auto& f : reported.output_files) {
    // std::to_string keeps every digit (the stream's default 6 significant digits wrote
    // 1234567 as 1.23457e+06, and the back end compares sizes exactly).
    xml << "<file_info><name>" << xml_escape(f.name) << "</name><nbytes>" << std::to_string(f.nbytes)
        << "</nbytes><md5_cksum>" << xml_escape(f.md5_cksum) << "</md5_cksum></file_info>\n";
  }
  return xml.str();
}

bool reported_success(const ReportedResult& reported) {
  return reported.state == kClientStateUploaded && reported.exit_status == 0;
}

ResultReport report_of(const ReportedResult& reported, const HostRow& host) {
  ResultReport report;
  report.outcome = reported_success(reported) ? Outcome::Success : Outcome::ClientError;
  report.client_state = static_cast<ClientState>(std::clamp(reported.state, 0, 6));
  report.exit_status = reported.exit_status;
  report.cpu_time = reported.final_cpu_time;
  report.elapsed_time = reported.final_elapsed_time;
  report.claimed_credit = reported.final_cpu_time * host.p_fpops / 1e9 / 8640;  // cobblestone-ish
  report.xml_doc_out = reported_files_xml(reported);
  report.stderr_out = reported.stderr_out;
  return report;
}

// Reports that changed nothing, logged once per request however many there are (a
// request may name up to max_results of them): the count and a few examples with the
// reason, asked of the database for the examples only.
constexpr size_t kLoggedExamples = 3;
void log_refused_reports(Database& db, const std::vector<std::string>& names, const HostRow& host) {
  if (names.empty()) return;
  bool suspicious = false;  // unknown, or another host's: worth a warning
  std::string examples;
  for (size_t i = 0; i < names.size() && i < kLoggedExamples; ++i) {
    auto result = fetch_host_result_by_name(db, names[i]);
    std::string why;
    if (!result) {
      why = "unknown";
      suspicious = true;
    } else if (result->hostid != host.id) {
      why = "result " + std::to_string(result->result_id) + " sent to host " + std::to_string(result->hostid);
      suspicious = true;
    } else {
      // A duplicate, or late and of no more use: the server is done with it.
      why = "result " + std::to_string(result->result_id) + " no longer takes reports";
    }
    examples += (i ? ", " : "") + quote_for_message(names[i]) + " (" + why + ")";
  }
  if (names.size() > kLoggedExamples) examples += ", ...";
  std::string line = std::to_string(names.size()) + (names.size() == 1 ? " report" : " reports") +
                     " from host " + std::to_string(host.id) + " changed nothing: " + examples;
  if (suspicious) {
    log_warning(line);
  } else {
    log_info(line);
  }
}

// Steps 3 and 4 in one transaction (the caller's): the host found or created, the reports
// taken, and the quota adjusted for the accepted ones. The row is written here only when
// write_host; otherwise once, later in the RPC, with the results sent (see send_work).
struct RecordedHost {
  HostRow row;
  bool created = false;  // inserted by this request: the row is fresh
};
RecordedHost record_host_and_reports(Database& db, const SchedulerRequest& req, const UserRow& user,
                                     int64_t now, const SchedulerContext& ctx, bool write_host) {
  HostRow host = find_host(db, req, user, now);
  bool is_new = host.id == 0;
  if (is_new) {
    host.create_time = now;
    host.id = insert_host(db, host);
  }
  int errors = 0, successes = 0;
  std::vector<std::string> refused;
  for (const auto& reported : req.results) {
    if (mark_result_reported_by_name(db, reported.name, host.id, now, report_of(reported, host))) {
      (reported_success(reported) ? successes : errors) += 1;
    } else {
      refused.push_back(reported.name);
    }
  }
  log_refused_reports(db, refused, host);
  int quota = host.max_results_day;
  for (int i = 0; i < errors; ++i) quota = quota_after_error(quota, ctx.config.daily_result_quota);
  if (errors == 0 && successes > 0) quota = quota_after_success(quota, ctx.config.daily_result_quota);
  host.max_results_day = quota;
  if (!is_new && write_host) update_host(db, host, now, 0);
  return RecordedHost{host, is_new};
}

// Results the host holds according to the server, read once for steps 5 and 6.
std::vector<HostResultRow> results_at_host(Database& db, const SchedulerRequest& req, const HostRow& host,
                                           bool asks_for_work) {
  if (!req.have_other_results && !asks_for_work) return {};
  return fetch_in_progress_results_at_host(db, host.id);
}

// Step 5: results the host says it still has — abort dead ones (a timed-out one only if not
// started: its late report may still help its workunit); and find lost ones to resend.
std::vector<HostResultRow> abort_and_find_lost(Database& db, const SchedulerRequest& req, const HostRow& host,
                                               const std::vector<HostResultRow>& in_progress, int64_t now,
                                               SchedulerReply& reply) {
  std::map<std::string, const HostResultRow*> by_name;
  for (const auto& r : in_progress) by_name[r.name] = &r;
  std::set<std::string> held;
  for (const auto& other : req.other_results) {
    held.insert(other.name);
    std::optional<HostResultRow> not_in_progress;
    const HostResultRow* result = nullptr;
    if (auto it = by_name.find(other.name); it != by_name.end()) {
      result = it->second;
    } else {  // over, or unknown, or another host's: rare, one query each
      not_in_progress = fetch_host_result_by_name(db, other.name);
      if (!not_in_progress || not_in_progress->hostid != host.id) continue;
      result = &*not_in_progress;
    }
    ResultAcceptanceView view{result->server_state, result->outcome, result->wu_canonical_resultid,
                              result->wu_error_mask, result->wu_assimilate_state};
    if (result_acceptance(view) == ResultAcceptance::Late) {
      // Timed out, its workunit still open: if the host is computing it, its late report
      // is still taken (BOINC: abort only if not started).
      reply.result_aborts_if_not_started.push_back(other.name);
    } else if (result->wu_error_mask != 0 || result->server_state == ServerState::Over) {
      reply.result_aborts.push_back(other.name);
    } else if (result->wu_canonical_resultid != 0) {
      reply.result_aborts_if_not_started.push_back(other.name);
    }
  }
  std::vector<HostResultRow> lost;
  if (!req.have_other_results) return lost;
  for (const auto& result : in_progress) {
    if (held.count(result.name) || result.report_deadline <= now) continue;
    bool reported = std::any_of(req.results.begin(), req.results.end(),
                                [&](const ReportedResult& r) { return r.name == result.name; });
    if (!reported) lost.push_back(result);
  }
  return lost;
}

class ReplyBuilder {
 public:
  ReplyBuilder(const SchedulerContext& ctx, SchedulerReply& reply) : ctx_(ctx), reply_(reply) {}

  // Adds what the client needs to run `result` with `version`; false if the stored
  // descriptions are unusable (logged; the result is left unsent).
  bool add_result(const SendDetailsRow& result, const AppVersionCache::App& app,
                  const AppVersionCache::Version& version) {
    auto wu_desc = read_stored_description(result.wu_xml_doc, "workunit");
    auto result_desc = read_stored_description(result.xml_doc_in, "result");
    if (!wu_desc.ok() || !result_desc.ok()) {
      log_error("result ", result.result_id, ": unusable stored description; not sent");
      return false;
    }
    if (apps_.insert(app.row.name).second) {
      reply_.apps.push_back(ReplyApp{app.row.name, app.row.user_friendly_name, false});
    }
    if (versions_.insert(version.row.id).second) {
      for (const auto& f : version.description.file_infos) add_file(f);
      ReplyAppVersion v;
      v.app_name = app.row.name;
      v.version_num = version.row.version_num;
      v.platform = version.platform;
      v.file_refs = version.description.file_refs;
      reply_.app_versions.push_back(v);
    }
    for (const auto& f : wu_desc->file_infos) add_file(f);
    ReplyWorkunit w;
    w.name = result.wu_name;
    w.app_name = app.row.name;
    w.version_num = version.row.version_num;
    w.command_line = wu_desc->command_line;
    w.rsc_fpops_est = result.rsc_fpops_est;
    w.rsc_fpops_bound = result.rsc_fpops_bound;
    w.rsc_memory_bound = result.rsc_memory_bound;
    w.rsc_disk_bound = result.rsc_disk_bound;
    w.file_refs = wu_desc->file_refs;
    reply_.workunits.push_back(w);
    for (auto f : result_desc->file_infos) {
      // Outputs: the URL is the upload handler's, and the upload certificate proves to it
      // that we asked for this file of at most max_nbytes.
      f.upload_urls = f.download_urls;
      f.download_urls.clear();
      if (f.max_nbytes <= 0) f.max_nbytes = static_cast<double>(ctx_.config.max_upload_size);
      auto signature =
          sign_block_boinc(ctx_.upload_private_key, upload_certificate_text(f.name, f.max_nbytes));
      if (!signature.ok()) {
        log_error("cannot sign upload certificate: ", signature.error());
        return false;
      }
      f.xml_signature = *signature;
      add_file(f);
    }
    ReplyResult r;
    r.name = result.name;
    r.wu_name = result.wu_name;
    r.report_deadline = result.report_deadline;
    r.platform = version.platform;
    r.version_num = version.row.version_num;
    r.file_refs = result_desc->file_refs;
    reply_.results.push_back(r);
    return true;
  }

 private:
  void add_file(const ReplyFileInfo& f) {
    if (files_.insert(f.name).second) reply_.file_infos.push_back(f);
  }
  const SchedulerContext& ctx_;
  SchedulerReply& reply_;
  std::set<std::string> apps_, files_;
  std::set<int64_t> versions_;
};

// The app versions this host can run, per app: one lookup in the process's cache each.
class HostVersions {
 public:
  HostVersions(Database& db, AppVersionCache& cache, std::vector<std::string> platforms, int64_t now)
      : db_(db), cache_(cache), platforms_(std::move(platforms)), now_(now) {}
  const AppVersionCache::Choice& for_app(int64_t appid) {
    auto it = chosen_.find(appid);
    if (it == chosen_.end()) it = chosen_.emplace(appid, cache_.choose(db_, appid, platforms_, now_)).first;
    return it->second;
  }
  std::vector<int64_t> apps_not_runnable() { return cache_.apps_not_runnable(db_, platforms_, now_); }

 private:
  Database& db_;
  AppVersionCache& cache_;
  std::vector<std::string> platforms_;
  int64_t now_;
  std::map<int64_t, AppVersionCache::Choice> chosen_;
};

// Whether all the unsent work this host never had a result of is for apps with no version
// for its platform: asked only when a request got nothing and such apps exist (two more
// queries), to tell the volunteer why.
bool only_unrunnable_work(Database& db, int64_t host_id, const std::vector<int64_t>& apps_not_runnable) {
  if (apps_not_runnable.empty() || fetch_send_candidates(db, host_id, 1).empty()) return false;
  SendFilter by_app_only;
  by_app_only.host_id = host_id;
  by_app_only.apps_not_runnable = apps_not_runnable;
  // Large, yet far from overflowing the query's flops × delay_bound (MariaDB's error).
  by_app_only.disk_free_bytes = by_app_only.flops = 1e300;
  by_app_only.now = std::numeric_limits<int64_t>::max();
  return fetch_send_candidates(db, by_app_only, 1).empty();
}

// Step 6: new work (and the resends of step 5). Writes the host row once (update_host): in
// the first transaction that claims work, or alone if none does; not a new host's without
// sends (inserted whole just before).
void send_work(Database& db, const SchedulerRequest& req, const HostRow& host, bool host_created,
               const std::vector<HostResultRow>& in_progress, const std::vector<HostResultRow>& lost,
               int64_t now, const SchedulerContext& ctx, SchedulerReply& reply) {
  std::vector<std::string> platforms{req.platform_name};
  platforms.insert(platforms.end(), req.alt_platforms.begin(), req.alt_platforms.end());
  AppVersionCache request_cache;  // when the process keeps none
  HostVersions versions(db, ctx.app_versions ? *ctx.app_versions : request_cache, platforms, now);
  ReplyBuilder builder(ctx, reply);
  // After the result's row changed for this host: read what the reply needs and add it.
  auto add = [&](int64_t result_id) {
    auto details = fetch_send_details(db, result_id);
    if (!details) return false;
    const auto& choice = versions.for_app(details->appid);
    if (!choice.version) return false;
    return builder.add_result(*details, *choice.app, *choice.version);
  };
  for (const auto& result : lost) {
    bool refreshed = db.transaction([&](Database& d) {
      return refresh_sent_result(d, result.result_id, result.workunit_id, host.id, now, result.delay_bound);
    });
    if (refreshed && add(result.result_id)) {
      reply.messages.push_back({MessagePriority::Low, "Resent lost task " + result.name});
    }
  }

  double request_seconds = std::max(req.work_req_seconds, req.cpu_req_secs);
  if (req.dont_send_work || request_seconds <= 0) return;  // the host row was written with the reports
  bool host_written = host_created;
  HostForScheduling view;
  view.id = host.id;
  view.platforms.insert(platforms.begin(), platforms.end());
  view.memory_bytes = host.m_nbytes;
  view.disk_free_bytes = host.d_free;
  view.flops = host.p_fpops > 0 ? host.p_fpops : 1e9;
  view.ncpus = std::max(1, host.p_ncpus);
  view.work_request_seconds = request_seconds;
  view.results_sent_today = host.nresults_today;
  view.daily_quota = host.max_results_day;
  for (const auto& r : in_progress) view.workunits_held.insert(r.workunit_id);
  for (const auto& f : req.held_files) view.files_held.insert(f.name);

  std::map<int64_t, int64_t> version_of_result;  // candidate result id -> app version to send it with
  SendFilter filter;
  filter.host_id = host.id;
  filter.apps_not_runnable = versions.apps_not_runnable();
  filter.memory_bytes = view.memory_bytes;
  filter.disk_free_bytes = view.disk_free_bytes;
  filter.flops = view.flops;
  filter.now = now;
  auto load_candidates = [&](int limit) {
    std::vector<CandidateResult> out;
    filter.disk_free_bytes = view.disk_free_bytes;  // less what this request was sent so far
    for (const auto& row : fetch_send_candidates(db, filter, limit)) {
      const auto& choice = versions.for_app(row.appid);
      CandidateResult c;
      c.result_id = row.result_id;
      c.workunit_id = row.workunit_id;
      c.platform = choice.version ? choice.version->platform : "";
      c.rsc_memory_bound = row.rsc_memory_bound;
      c.rsc_disk_bound = row.rsc_disk_bound;
      c.rsc_fpops_est = row.rsc_fpops_est;
      c.delay_bound = row.delay_bound;
      c.priority = row.priority;
      c.preferred_host = row.preferred_host;
      c.preferred_until = row.preferred_until;
      if (choice.version) version_of_result[row.result_id] = choice.version->row.id;
      out.push_back(c);
    }
    return out;
  };
  // The best few candidates cover most requests; only when they do not is the wide
  // window read (reading it every time was most of an RPC's database work). Neither window
  // holds a workunit the host already had a result of (the query passes over them), so a
  // host that holds results of the first thousand workunits still sees the ones after.
  int window = kFirstCandidates;
  std::vector<CandidateResult> candidates = load_candidates(window);
  SelectionLimits limits{ctx.config.max_wus_to_send, ctx.config.daily_result_quota};
  Selection selection;
  int sent = 0;
  // Concurrent scheduler processes see the same best candidates; a result another one
  // claimed first is dropped and the choice made again.
  std::set<int64_t> gone;
  for (int round = 0; round < kClaimRounds; ++round) {
    std::vector<CandidateResult> open;
    for (const auto& c : candidates) {
      if (!gone.count(c.result_id)) open.push_back(c);
    }
    selection = choose_work(view, open, limits, now);
    // One transaction claims the round's choice and counts it against the daily quota.
    // Claims go in workunit order, one order for every scheduler process, so two that
    // claim overlapping sets wait for each other instead of deadlocking.
    std::vector<CandidateResult> by_workunit = selection.chosen;
    std::sort(by_workunit.begin(), by_workunit.end(), [](const CandidateResult& a, const CandidateResult& b) {
      return a.workunit_id < b.workunit_id;
    });
    std::set<int64_t> won, had;
    db.transaction([&](Database& d) {
      won.clear();
      had.clear();
      for (const auto& c : by_workunit) {
        auto version = version_of_result.find(c.result_id);
        if (version == version_of_result.end()) continue;  // nothing to run it with (an empty platform name)
        SendClaim claim{c.result_id, c.workunit_id, host.id,        host.userid,
                        now,         c.delay_bound, version->second};
        if (claim_unsent_result(d, claim)) {
          won.insert(c.result_id);
        } else if (host_has_result_of(d, c.workunit_id, host.id)) {
          // Never two results of one workunit to one host (BOINC's rule: a quorum needs independent hosts),
          // also after it reported the first: workunits_held knows only the results it holds. (Found by the
          // chaos run: a graph operand's two results, reserved for one host, both went to it.) The claim
          // refused it; asked only now, the common path pays nothing.
          had.insert(c.workunit_id);
        }
      }
      if (won.empty()) return;
      // After the claims: the workunit and result rows are locked before the host's, as
      // the validator locks them.
      if (host_written) {
        add_results_sent(d, host.id, now, static_cast<int>(won.size()));
      } else {
        update_host(d, host, now, static_cast<int>(won.size()));
      }
    });
    if (!won.empty()) host_written = true;
    for (const auto& chosen : selection.chosen) {
      gone.insert(chosen.result_id);
      if (had.count(chosen.workunit_id)) view.workunits_held.insert(chosen.workunit_id);  // choose again
      if (!won.count(chosen.result_id)) continue;  // another scheduler process sent it first, or had
      // What this send covers no longer needs covering in a later round.
      view.workunits_held.insert(chosen.workunit_id);
      view.work_request_seconds -= estimated_runtime(view, chosen) / view.ncpus;
      view.disk_free_bytes -= chosen.rsc_disk_bound;
      view.results_sent_today += 1;
      limits.max_results_per_reply -= 1;
      if (add(chosen.result_id)) ++sent;
    }
    if (view.work_request_seconds <= 0 || limits.max_results_per_reply <= 0 || selection.quota_reached) break;
    bool lost_any = won.size() < selection.chosen.size();
    if (!lost_any) {
      bool window_full = candidates.size() == static_cast<size_t>(window);
      if (window == kCandidatesPerRequest || !window_full) break;
      window = kCandidatesPerRequest;
    }
    // A lost claim means the list is stale (others sent from it since it was read, many
    // times over when this process was not scheduled for a while): read it again.
    candidates = load_candidates(window);
  }
  if (!host_written) update_host(db, host, now, 0);
  if (sent == 0) {
    if (selection.quota_reached) {
      reply.messages.push_back({MessagePriority::Low, "This computer has reached its daily task limit"});
    } else if (candidates.empty() && only_unrunnable_work(db, host.id, filter.apps_not_runnable)) {
      reply.messages.push_back(
          {MessagePriority::Notice, "No application is available for your platform " + req.platform_name});
    } else {
      reply.messages.push_back({MessagePriority::Low, "No tasks are available"});
    }
  }
}

}  // namespace

SchedulerReply handle_scheduler_request(const std::string& body, Database& db, const SchedulerContext& ctx,
                                        int64_t now) {
  std::string project = ctx.config.long_name.empty() ? ctx.config.name : ctx.config.long_name;
  auto request = parse_scheduler_request(body, ctx.limits);
  if (!request.ok()) {
    return make_error_reply(project, "Malformed scheduler request: " + request.error(), 3600);
  }
  const SchedulerRequest& req = *request;
  if (judge_rpc_seqno(req.rpc_seqno, std::nullopt) == SeqnoVerdict::Refused) {
    return make_error_reply(
        project,
        "Invalid rpc_seqno " + std::to_string(req.rpc_seqno) +
            ": a client counts its requests up from 0. To fix, remove and add this project.",
        3600);
  }
  auto user = fetch_user_by_authenticator(db, req.authenticator);
  if (req.authenticator.empty() || !user) {
    return make_error_reply(project, "Invalid or missing account key. To fix, remove and add this project.",
                            3600);
  }
  SchedulerReply reply = base_reply(ctx);
  bool asks_for_work = !req.dont_send_work && std::max(req.work_req_seconds, req.cpu_req_secs) > 0;
  // A request for work writes its host row with the claim, one write per RPC (send_work).
  RecordedHost recorded = db.transaction(
      [&](Database& d) { return record_host_and_reports(d, req, *user, now, ctx, !asks_for_work); });
  const HostRow& host = recorded.row;
  // Every report named is acknowledged: the client may forget it, changed or not.
  for (const auto& reported : req.results) reply.result_acks.push_back(reported.name);
  // Only a newly created host record is announced: a client that already has a hostid and
  // gets one back takes its state file for a copy and makes itself a new host CPID.
  if (host.id != req.hostid) reply.hostid = host.id;
  reply.include_host_fields = true;
  reply.host_total_credit = host.total_credit;
  reply.host_expavg_credit = host.expavg_credit;
  reply.host_create_time = host.create_time;
  reply.user = ReplyUser{user->id,
                         user->name,
                         user->total_credit,
                         user->expavg_credit,
                         user->create_time,
                         user->cross_project_id,
                         "",
                         "",
                         0,
                         ""};
  // The client keeps the first key it gets; sending it again (even the same key, in other
  // whitespace) makes the 7.20 client log "Missing code sign key signature".
  if (!same_key_text(req.code_sign_key, ctx.code_sign_public)) reply.code_sign_key = ctx.code_sign_public;

  std::vector<HostResultRow> in_progress = results_at_host(db, req, host, asks_for_work);
  std::vector<HostResultRow> lost = abort_and_find_lost(db, req, host, in_progress, now, reply);
  send_work(db, req, host, recorded.created, in_progress, lost, now, ctx, reply);
  return reply;
}

}  // namespace tharsis
