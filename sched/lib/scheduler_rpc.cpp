// Implementation of sched/lib/scheduler_rpc.h.
#include "sched/lib/scheduler_rpc.h"

#include <map>
#include <set>
#include <sstream>

#include "db/app_store.h"
#include "db/host_store.h"
#include "db/result_store.h"
#include "db/send_store.h"
#include "db/user_store.h"
#include "db/workunit_store.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/log.h"
#include "lib/protocol/scheduler_request.h"
#include "lib/protocol/xml_text.h"
#include "sched/lib/stored_descriptions.h"
#include "sched/lib/work_selection.h"

namespace tharsis {
namespace {

constexpr int kClientStateUploaded = 5;  // BOINC's RESULT_FILES_UPLOADED
constexpr int kFirstCandidates = 16;
constexpr int kCandidatesPerRequest = 200;
constexpr int kClaimRounds = 16;  // each round drops the results lost to a concurrent request

// BOINC key texts compared as the keys they stand for (the client strips and re-wraps
// the text it stores). An empty request key never matches: the client has none yet.
bool same_key_text(const std::string& from_client, const std::string& ours) {
  if (from_client.empty()) return false;
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


// Step 3: the host this request comes from, created or updated.
HostRow find_or_create_host(Database& db, const SchedulerRequest& req, const UserRow& user, int64_t now) {
  std::optional<HostRow> host;
  if (req.hostid > 0) {
    host = fetch_host(db, req.hostid, /*for_update=*/true);
    if (host && host->userid != user.id) host.reset();  // not this account's host
  }
  if (!host && !req.host.host_cpid.empty()) host = fetch_host_by_cpid(db, user.id, req.host.host_cpid);
  HostRow h = host.value_or(HostRow{});
  h.userid = user.id;
  h.rpc_seqno = req.rpc_seqno;
  h.rpc_time = now;
  h.domain_name = req.host.domain_name;
  h.host_cpid = req.host.host_cpid;
  h.platform_name = req.platform_name;
  h.p_ncpus = req.host.p_ncpus;
  h.p_vendor = req.host.p_vendor;
  h.p_model = req.host.p_model;
  h.p_fpops = req.host.p_fpops;
  h.p_iops = req.host.p_iops;
  h.os_name = req.host.os_name;
  h.os_version = req.host.os_version;
  h.m_nbytes = req.host.m_nbytes;
  h.m_swap = req.host.m_swap;
  h.d_total = req.host.d_total;
  h.d_free = req.host.d_free;
  if (h.nresults_day != static_cast<int>(now / 86400)) h.nresults_today = 0;  // a new day's quota
  if (h.id == 0) {
    h.create_time = now;
    h.id = insert_host(db, h);
  } else {
    update_host(db, h);
  }
  return h;
}

std::string reported_files_xml(const ReportedResult& reported) {
  std::ostringstream xml;
  for (const auto& f : reported.output_files) {
    xml << "<file_info><name>" << xml_escape(f.name) << "</name><nbytes>" << f.nbytes << "</nbytes><md5_cksum>"
        << xml_escape(f.md5_cksum) << "</md5_cksum></file_info>\n";
  }
  return xml.str();
}

// Step 4: one reported result. Returns whether it counted as an error (for the quota).
bool take_report(Database& db, const ReportedResult& reported, HostRow& host, int64_t now, SchedulerReply& reply,
                 const SchedulerContext& ctx) {
  bool error = false;
  db.transaction([&](Database& d) {
    error = false;
    auto result = fetch_result_by_name(d, reported.name);
    if (!result) {
      log_warning("host ", host.id, " reported unknown result '", reported.name, "'");
      return;
    }
    if (result->hostid != host.id) {
      log_warning("host ", host.id, " reported result ", result->id, " sent to host ", result->hostid, "; ignored");
      return;
    }
    ResultReport report;
    bool success = reported.state == kClientStateUploaded && reported.exit_status == 0;
    report.outcome = success ? Outcome::Success : Outcome::ClientError;
    report.client_state = static_cast<ClientState>(std::clamp(reported.state, 0, 6));
    report.exit_status = reported.exit_status;
    report.cpu_time = reported.final_cpu_time;
    report.elapsed_time = reported.final_elapsed_time;
    report.claimed_credit = reported.final_cpu_time * host.p_fpops / 1e9 / 8640;  // cobblestone-ish
    report.xml_doc_out = reported_files_xml(reported);
    report.stderr_out = reported.stderr_out;
    if (mark_result_reported(d, result->id, host.id, now, report)) {
      error = !success;
    } else if (result->server_state == ServerState::Over && result->outcome == Outcome::NoReply) {
      // Late: the server gave up on it already; BOINC records it anyway for credit
      // purposes, but the law has decided. Nothing to change.
      log_info("late report of result ", result->id, " from host ", host.id);
    }
  });
  (void)ctx;
  reply.result_acks.push_back(reported.name);
  return error;
}

// Step 5: results the host says it still has — abort dead ones; and resend lost ones.
void abort_and_resend(Database& db, const SchedulerRequest& req, const HostRow& host, int64_t now,
                      SchedulerReply& reply, std::vector<ResultRow>& resend) {
  std::set<std::string> held;
  for (const auto& other : req.other_results) {
    held.insert(other.name);
    auto result = fetch_result_by_name(db, other.name);
    if (!result || result->hostid != host.id) continue;
    auto wu = fetch_workunit(db, result->workunitid);
    if (!wu) continue;
    if (wu->error_mask != 0 || result->server_state == ServerState::Over) {
      reply.result_aborts.push_back(other.name);
    } else if (wu->canonical_resultid != 0) {
      reply.result_aborts_if_not_started.push_back(other.name);
    }
  }
  if (!req.have_other_results) return;
  for (const auto& result : fetch_in_progress_results_of_host(db, host.id)) {
    if (held.count(result.name) || result.report_deadline <= now) continue;
    for (const auto& reported : req.results) {
      if (reported.name == result.name) goto next;
    }
    resend.push_back(result);
  next:;
  }
}

class ReplyBuilder {
 public:
  ReplyBuilder(Database& db, const SchedulerContext& ctx, SchedulerReply& reply) : db_(db), ctx_(ctx), reply_(reply) {}

  // Adds what the client needs to run `result` with `version`; false if the stored
  // descriptions are unusable (logged; the result is left unsent).
  bool add_result(const ResultRow& result, const WorkunitRow& wu, const AppRow& app, const AppVersionRow& version,
                  const std::string& platform) {
    auto version_desc = read_stored_description(version.xml_doc, "app_version");
    auto wu_desc = read_stored_description(wu.xml_doc, "workunit");
    auto result_desc = read_stored_description(result.xml_doc_in, "result");
    if (!version_desc.ok() || !wu_desc.ok() || !result_desc.ok()) {
      log_error("result ", result.id, ": unusable stored description; not sent");
      return false;
    }
    if (apps_.insert(app.name).second) reply_.apps.push_back(ReplyApp{app.name, app.user_friendly_name, false});
    if (versions_.insert(version.id).second) {
      for (const auto& f : version_desc->file_infos) add_file(f);
      ReplyAppVersion v;
      v.app_name = app.name;
      v.version_num = version.version_num;
      v.platform = platform;
      v.file_refs = version_desc->file_refs;
      reply_.app_versions.push_back(v);
    }
    for (const auto& f : wu_desc->file_infos) add_file(f);
    ReplyWorkunit w;
    w.name = wu.name;
    w.app_name = app.name;
    w.version_num = version.version_num;
    w.command_line = wu_desc->command_line;
    w.rsc_fpops_est = wu.rsc_fpops_est;
    w.rsc_fpops_bound = wu.rsc_fpops_bound;
    w.rsc_memory_bound = wu.rsc_memory_bound;
    w.rsc_disk_bound = wu.rsc_disk_bound;
    w.file_refs = wu_desc->file_refs;
    reply_.workunits.push_back(w);
    for (auto f : result_desc->file_infos) {
      // Outputs: the URL is the upload handler's, and the upload certificate proves to it
      // that we asked for this file of at most max_nbytes.
      f.upload_urls = f.download_urls;
      f.download_urls.clear();
      if (f.max_nbytes <= 0) f.max_nbytes = static_cast<double>(ctx_.config.max_upload_size);
      auto signature = sign_block_boinc(ctx_.upload_private_key, upload_certificate_text(f.name, f.max_nbytes));
      if (!signature.ok()) {
        log_error("cannot sign upload certificate: ", signature.error());
        return false;
      }
      f.xml_signature = *signature;
      add_file(f);
    }
    ReplyResult r;
    r.name = result.name;
    r.wu_name = wu.name;
    r.report_deadline = result.report_deadline;
    r.platform = platform;
    r.version_num = version.version_num;
    r.file_refs = result_desc->file_refs;
    reply_.results.push_back(r);
    return true;
  }

 private:
  void add_file(const ReplyFileInfo& f) {
    if (files_.insert(f.name).second) reply_.file_infos.push_back(f);
  }
  Database& db_;
  const SchedulerContext& ctx_;
  SchedulerReply& reply_;
  std::set<std::string> apps_, files_;
  std::set<int64_t> versions_;
};

// The app version a host should run for `appid`: newest for its first platform that has one.
struct VersionChoice {
  std::optional<AppVersionRow> version;
  std::string platform;
};

class VersionCache {
 public:
  VersionCache(Database& db, std::vector<std::string> platforms) : db_(db), platforms_(std::move(platforms)) {}
  const VersionChoice& for_app(int64_t appid) {
    auto it = cache_.find(appid);
    if (it != cache_.end()) return it->second;
    VersionChoice choice;
    for (const auto& platform : platforms_) {
      choice.version = fetch_latest_app_version(db_, appid, platform);
      if (choice.version) {
        choice.platform = platform;
        break;
      }
    }
    return cache_.emplace(appid, choice).first->second;
  }

 private:
  Database& db_;
  std::vector<std::string> platforms_;
  std::map<int64_t, VersionChoice> cache_;
};

// Step 6: new work (and the resends of step 5).
void send_work(Database& db, const SchedulerRequest& req, HostRow& host, const std::vector<ResultRow>& resend,
               int64_t now, const SchedulerContext& ctx, SchedulerReply& reply) {
  std::vector<std::string> platforms{req.platform_name};
  platforms.insert(platforms.end(), req.alt_platforms.begin(), req.alt_platforms.end());
  VersionCache versions(db, platforms);
  ReplyBuilder builder(db, ctx, reply);
  // `wu`: the result's workunit when the caller has just read it (saves a query).
  auto add = [&](const ResultRow& result, std::optional<WorkunitRow> wu) {
    if (!wu) wu = fetch_workunit(db, result.workunitid);
    auto app = fetch_app(db, result.appid);
    const VersionChoice& choice = versions.for_app(result.appid);
    if (!wu || !app || !choice.version) return false;
    return builder.add_result(result, *wu, *app, *choice.version, choice.platform);
  };
  for (ResultRow result : resend) {
    auto wu = fetch_workunit(db, result.workunitid);
    if (!wu) continue;
    db.transaction([&](Database& d) {
      result.report_deadline = now + wu->delay_bound;
      result.sent_time = now;
      update_result(d, result);
      advance_transition_time(d, wu->id, result.report_deadline);
    });
    if (add(result, wu)) reply.messages.push_back({MessagePriority::Low, "Resent lost task " + result.name});
  }

  double request_seconds = std::max(req.work_req_seconds, req.cpu_req_secs);
  if (req.dont_send_work || request_seconds <= 0) return;
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
  for (const auto& r : fetch_in_progress_results_of_host(db, host.id)) view.workunits_held.insert(r.workunitid);
  for (const auto& f : req.held_files) view.files_held.insert(f.name);

  auto load_candidates = [&](int limit) {
    std::vector<CandidateResult> out;
    for (const auto& row : fetch_send_candidates(db, limit)) {
      const VersionChoice& choice = versions.for_app(row.appid);
      CandidateResult c;
      c.result_id = row.result_id;
      c.workunit_id = row.workunit_id;
      c.platform = choice.version ? choice.platform : "";
      c.rsc_memory_bound = row.rsc_memory_bound;
      c.rsc_disk_bound = row.rsc_disk_bound;
      c.rsc_fpops_est = row.rsc_fpops_est;
      c.delay_bound = row.delay_bound;
      c.priority = row.priority;
      c.preferred_host = row.preferred_host;
      c.preferred_until = row.preferred_until;
      out.push_back(c);
    }
    return out;
  };
  // The best few candidates cover most requests; only when they do not is the wide
  // window read (reading it every time was most of an RPC's database work).
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
    bool lost_any = false;
    for (const auto& chosen : selection.chosen) {
      gone.insert(chosen.result_id);
      std::optional<ResultRow> result;
      std::optional<WorkunitRow> wu;
      db.transaction([&](Database& d) {
        result.reset();
        wu = fetch_workunit(d, chosen.workunit_id);
        if (!wu) return;
        if (!mark_result_sent(d, chosen.result_id, host.id, host.userid, now, wu->delay_bound,
                              versions.for_app(wu->appid).version->id)) {
          return;  // another scheduler process sent it first
        }
        result = fetch_result(d, chosen.result_id);
      });
      if (!result) {
        lost_any = true;
        continue;
      }
      // What this send covers no longer needs covering in a later round.
      view.workunits_held.insert(chosen.workunit_id);
      view.work_request_seconds -= estimated_runtime(view, chosen) / view.ncpus;
      view.disk_free_bytes -= chosen.rsc_disk_bound;
      view.results_sent_today += 1;
      limits.max_results_per_reply -= 1;
      if (add(*result, wu)) ++sent;
    }
    if (view.work_request_seconds <= 0 || limits.max_results_per_reply <= 0 || selection.quota_reached) break;
    if (!lost_any) {
      bool window_full = candidates.size() == static_cast<size_t>(window);
      if (window == kCandidatesPerRequest || !window_full) break;
      window = kCandidatesPerRequest;
    }
    // A lost claim means the list is stale (others sent from it since it was read, many
    // times over when this process was not scheduled for a while): read it again.
    candidates = load_candidates(window);
  }
  if (sent > 0) {
    host.nresults_today = db.transaction([&](Database& d) { return count_results_sent(d, host.id, now, sent); });
  }
  if (sent == 0) {
    if (selection.quota_reached) {
      reply.messages.push_back({MessagePriority::Low, "This computer has reached its daily task limit"});
    } else if (selection.skipped_platform > 0 && candidates.size() == static_cast<size_t>(selection.skipped_platform)) {
      reply.messages.push_back({MessagePriority::Notice, "No application is available for your platform " +
                                                             req.platform_name});
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
  auto user = fetch_user_by_authenticator(db, req.authenticator);
  if (req.authenticator.empty() || !user) {
    return make_error_reply(project, "Invalid or missing account key. To fix, remove and add this project.", 3600);
  }
  SchedulerReply reply = base_reply(ctx);
  HostRow host = db.transaction([&](Database& d) { return find_or_create_host(d, req, *user, now); });
  // Only a newly created host record is announced: a client that already has a hostid and
  // gets one back takes its state file for a copy and makes itself a new host CPID.
  if (host.id != req.hostid) reply.hostid = host.id;
  reply.include_host_fields = true;
  reply.host_total_credit = host.total_credit;
  reply.host_expavg_credit = host.expavg_credit;
  reply.host_create_time = host.create_time;
  reply.user = ReplyUser{user->id, user->name, user->total_credit, user->expavg_credit, user->create_time,
                         user->cross_project_id, "", "", 0, ""};
  // The client keeps the first key it gets; sending it again (even the same key, in other
  // whitespace) makes the 7.20 client log "Missing code sign key signature".
  if (!same_key_text(req.code_sign_key, ctx.code_sign_public)) reply.code_sign_key = ctx.code_sign_public;

  int errors = 0, successes = 0;
  for (const auto& reported : req.results) {
    bool error = take_report(db, reported, host, now, reply, ctx);
    (error ? errors : successes) += 1;
  }
  if (errors > 0 || successes > 0) {
    int quota = host.max_results_day;
    for (int i = 0; i < errors; ++i) quota = quota_after_error(quota, ctx.config.daily_result_quota);
    if (errors == 0) quota = quota_after_success(quota, ctx.config.daily_result_quota);
    if (quota != host.max_results_day) {  // usually unchanged: at the default, successes keep it there
      host.max_results_day = quota;
      db.transaction([&](Database& d) { set_max_results_day(d, host.id, quota); });
    }
  }
  std::vector<ResultRow> resend;
  abort_and_resend(db, req, host, now, reply, resend);
  send_work(db, req, host, resend, now, ctx, reply);
  return reply;
}

}  // namespace tharsis
