// Implementation of lib/protocol/scheduler_reply.h. Element order follows BOINC's own
// scheduler (header, messages, account, host, acks/aborts, apps, files, app versions,
// workunits, results, key); the client does not depend on it, but people reading logs do.
#include "lib/protocol/scheduler_reply.h"

#include <cctype>

#include "lib/protocol/xml_text.h"

namespace tharsis {

namespace {

class ReplyWriter {
 public:
  void text(const char* tag, std::string_view value, int indent = 0) { raw(tag, xml_escape(value), indent); }
  void number(const char* tag, double value, int indent = 0) { raw(tag, format_double(value), indent); }
  void integer(const char* tag, int64_t value, int indent = 0) { raw(tag, format_int(value), indent); }
  // BOINC's parse_bool reads "<tag/>" as true; false is simply absent.
  void flag(const char* tag, bool value, int indent = 0) {
    if (!value) return;
    pad(indent);
    out_ += "<";
    out_ += tag;
    out_ += "/>\n";
  }
  // Key and signature text: the client copies the element content without unescaping, so
  // it is written as is; only the characters of BOINC hex text are kept, which also keeps
  // the document well-formed whatever the caller passed.
  void hex_block(const char* tag, std::string_view value, int indent = 0) {
    std::string kept;
    for (char c : value) {
      if (std::isxdigit(static_cast<unsigned char>(c)) || c == '.' || c == '\n' || c == ' ') kept += c;
    }
    while (!kept.empty() && (kept.back() == '\n' || kept.back() == ' ')) kept.pop_back();
    // Leading blanks too, or dropping a stray character can leave a blank first line and the
    // rendering changes after a parse round trip (found by fuzzing).
    kept.erase(0, kept.find_first_not_of("\n "));
    // Nothing left to send is not sent: an empty element reads back as absent (fuzz finding).
    if (kept.empty()) return;
    pad(indent);
    out_ += "<";
    out_ += tag;
    out_ += ">\n";
    out_ += kept;
    out_ += "\n";
    pad(indent);
    out_ += "</";
    out_ += tag;
    out_ += ">\n";
  }
  void open(const char* tag, int indent = 0) {
    pad(indent);
    out_ += "<";
    out_ += tag;
    out_ += ">\n";
  }
  void close(const char* tag, int indent = 0) {
    pad(indent);
    out_ += "</";
    out_ += tag;
    out_ += ">\n";
  }
  void literal(std::string_view text) { out_ += text; }
  std::string take() { return std::move(out_); }

 private:
  void raw(const char* tag, std::string_view value, int indent) {
    pad(indent);
    append_element(out_, tag, value);
  }
  void pad(int indent) { out_.append(static_cast<size_t>(indent) * 4, ' '); }
  std::string out_;
};

void write_file_ref(ReplyWriter& w, const ReplyFileRef& ref) {
  w.open("file_ref", 1);
  w.text("file_name", ref.file_name, 2);
  if (!ref.open_name.empty()) w.text("open_name", ref.open_name, 2);
  w.flag("main_program", ref.main_program, 2);
  w.flag("copy_file", ref.copy_file, 2);
  w.flag("optional", ref.optional, 2);
  w.close("file_ref", 1);
}

void write_named(ReplyWriter& w, const char* tag, const std::string& name) {
  w.open(tag);
  w.text("name", name, 1);
  w.close(tag);
}

void write_file_info(ReplyWriter& w, const ReplyFileInfo& file) {
  w.open("file_info");
  w.text("name", file.name, 1);
  for (const auto& url : file.download_urls) w.text("url", url, 1);
  for (const auto& url : file.upload_urls) w.text("upload_url", url, 1);
  if (!file.md5_cksum.empty()) w.text("md5_cksum", file.md5_cksum, 1);
  if (file.nbytes > 0) w.number("nbytes", file.nbytes, 1);
  if (file.max_nbytes > 0) w.number("max_nbytes", file.max_nbytes, 1);
  w.flag("executable", file.executable, 1);
  w.flag("sticky", file.sticky, 1);
  w.flag("no_delete", file.no_delete, 1);
  if (!file.file_signature.empty()) w.hex_block("file_signature", file.file_signature, 1);
  if (!file.xml_signature.empty()) w.hex_block("xml_signature", file.xml_signature, 1);
  w.close("file_info");
}

void write_app_version(ReplyWriter& w, const ReplyAppVersion& version) {
  w.open("app_version");
  w.text("app_name", version.app_name, 1);
  w.integer("version_num", version.version_num, 1);
  if (!version.api_version.empty()) w.text("api_version", version.api_version, 1);
  for (const auto& ref : version.file_refs) write_file_ref(w, ref);
  w.text("platform", version.platform, 1);
  if (!version.plan_class.empty()) w.text("plan_class", version.plan_class, 1);
  w.number("avg_ncpus", version.avg_ncpus, 1);
  if (version.flops > 0) w.number("flops", version.flops, 1);
  if (!version.cmdline.empty()) w.text("cmdline", version.cmdline, 1);
  w.close("app_version");
}

void write_workunit(ReplyWriter& w, const ReplyWorkunit& wu) {
  w.open("workunit");
  w.text("name", wu.name, 1);
  w.text("app_name", wu.app_name, 1);
  if (wu.version_num != 0) w.integer("version_num", wu.version_num, 1);
  if (!wu.command_line.empty()) w.text("command_line", wu.command_line, 1);
  w.number("rsc_fpops_est", wu.rsc_fpops_est, 1);
  w.number("rsc_fpops_bound", wu.rsc_fpops_bound, 1);
  w.number("rsc_memory_bound", wu.rsc_memory_bound, 1);
  w.number("rsc_disk_bound", wu.rsc_disk_bound, 1);
  for (const auto& ref : wu.file_refs) write_file_ref(w, ref);
  w.close("workunit");
}

void write_result(ReplyWriter& w, const ReplyResult& result) {
  w.open("result");
  w.text("name", result.name, 1);
  w.text("wu_name", result.wu_name, 1);
  w.integer("report_deadline", result.report_deadline, 1);
  for (const auto& ref : result.file_refs) write_file_ref(w, ref);
  w.text("platform", result.platform, 1);
  w.integer("version_num", result.version_num, 1);
  if (!result.plan_class.empty()) w.text("plan_class", result.plan_class, 1);
  w.flag("report_immediately", result.report_immediately, 1);
  w.close("result");
}

}  // namespace

const char* message_priority_name(MessagePriority priority) {
  switch (priority) {
    case MessagePriority::Low:
      return "low";
    case MessagePriority::High:
      return "high";
    case MessagePriority::Notice:
      return "notice";
  }
  return "low";
}

std::string render_scheduler_reply(const SchedulerReply& reply) {
  ReplyWriter w;
  w.open("scheduler_reply");
  w.integer("scheduler_version", reply.scheduler_version);
  w.flag("dont_use_dcf", reply.dont_use_dcf);
  if (!reply.master_url.empty()) w.text("master_url", reply.master_url);
  if (reply.request_delay) w.number("request_delay", *reply.request_delay);
  for (const auto& message : reply.messages) {
    w.literal("<message priority=\"");
    w.literal(message_priority_name(message.priority));
    w.literal("\">");
    w.literal(xml_escape(message.text));
    w.literal("</message>\n");
  }
  w.text("project_name", reply.project_name);
  if (reply.project_is_down) {
    w.flag("project_is_down", true);
    w.close("scheduler_reply");
    return w.take();
  }
  w.flag("send_full_workload", reply.send_full_workload);
  if (reply.next_rpc_delay) w.number("next_rpc_delay", *reply.next_rpc_delay);
  if (reply.user) {
    const ReplyUser& user = *reply.user;
    w.integer("userid", user.userid);
    w.text("user_name", user.name);
    w.number("user_total_credit", user.total_credit);
    w.number("user_expavg_credit", user.expavg_credit);
    w.integer("user_create_time", user.create_time);
    if (!user.email_hash.empty()) w.text("email_hash", user.email_hash);
    if (!user.cross_project_id.empty()) {
      w.text("cross_project_id", user.cross_project_id);
      w.text("external_cpid", user.external_cpid);
    }
    if (user.teamid != 0) {
      w.integer("teamid", user.teamid);
      w.text("team_name", user.team_name);
    }
  }
  if (reply.hostid != 0) w.integer("hostid", reply.hostid);
  if (reply.include_host_fields) {
    w.number("host_total_credit", reply.host_total_credit);
    w.number("host_expavg_credit", reply.host_expavg_credit);
    w.text("host_venue", reply.host_venue);
    w.integer("host_create_time", reply.host_create_time);
  }
  for (const auto& name : reply.result_acks) write_named(w, "result_ack", name);
  for (const auto& name : reply.result_aborts) write_named(w, "result_abort", name);
  for (const auto& name : reply.result_aborts_if_not_started)
    write_named(w, "result_abort_if_not_started", name);
  for (const auto& app : reply.apps) {
    w.open("app");
    w.text("name", app.name, 1);
    w.text("user_friendly_name", app.user_friendly_name.empty() ? app.name : app.user_friendly_name, 1);
    w.integer("non_cpu_intensive", app.non_cpu_intensive ? 1 : 0, 1);
    w.close("app");
  }
  for (const auto& file : reply.file_infos) write_file_info(w, file);
  for (const auto& version : reply.app_versions) write_app_version(w, version);
  for (const auto& wu : reply.workunits) write_workunit(w, wu);
  for (const auto& result : reply.results) write_result(w, result);
  if (!reply.code_sign_key.empty()) w.hex_block("code_sign_key", reply.code_sign_key);
  if (!reply.code_sign_key_signature.empty())
    w.hex_block("code_sign_key_signature", reply.code_sign_key_signature);
  for (const auto& name : reply.file_deletes) w.text("delete_file_info", name);
  w.close("scheduler_reply");
  return w.take();
}

SchedulerReply make_error_reply(std::string project_name, std::string message, double request_delay,
                                MessagePriority priority) {
  SchedulerReply reply;
  reply.project_name = std::move(project_name);
  reply.request_delay = request_delay;
  reply.messages.push_back(ReplyMessage{priority, std::move(message)});
  return reply;
}

}  // namespace tharsis
