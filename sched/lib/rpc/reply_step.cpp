// Implementation of sched/lib/rpc/reply_step.h.
#include "sched/lib/rpc/reply_step.h"

#include "lib/crypto/boinc_signature.h"
#include "lib/log.h"
#include "sched/lib/stored_descriptions.h"

namespace tharsis {

std::string project_name(const ProjectConfig& config) {
  return config.long_name.empty() ? config.name : config.long_name;
}

SchedulerReply base_reply(const ProjectConfig& config) {
  SchedulerReply reply;
  reply.master_url = config.master_url;
  reply.project_name = project_name(config);
  reply.request_delay = config.request_delay;
  return reply;
}

void add_host_and_account(SchedulerReply& reply, const SchedulerRequest& req, const HostRow& host,
                          const UserRow& user) {
  // Every report named is acknowledged: the client may forget it, changed or not.
  for (const auto& reported : req.results) reply.result_acks.push_back(reported.name);
  // Only a newly created host record is announced: a client that already has a hostid and
  // gets one back takes its state file for a copy and makes itself a new host CPID.
  if (host.id != req.hostid) reply.hostid = host.id;
  reply.include_host_fields = true;
  reply.host_total_credit = host.total_credit;
  reply.host_expavg_credit = host.expavg_credit;
  reply.host_create_time = host.create_time;
  reply.user = ReplyUser{user.id,
                         user.name,
                         user.total_credit,
                         user.expavg_credit,
                         user.create_time,
                         user.cross_project_id,
                         "",
                         "",
                         0,
                         ""};
}

bool ReplyBuilder::add_result(const SendDetailsRow& result, const AppVersionCache::App& app,
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
  r.wu_name = result.wu_name;
  r.report_deadline = result.report_deadline;
  r.platform = version.platform;
  r.version_num = version.row.version_num;
  r.file_refs = result_desc->file_refs;
  reply_.results.push_back(r);
  return true;
}

void ReplyBuilder::add_file(const ReplyFileInfo& f) {
  if (files_.insert(f.name).second) reply_.file_infos.push_back(f);
}

}  // namespace tharsis
