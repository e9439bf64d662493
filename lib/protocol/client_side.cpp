// Implementation of lib/protocol/client_side.h.
#include "lib/protocol/client_side.h"

#include <functional>
#include <map>

#include "lib/protocol/upload_protocol.h"
#include "lib/protocol/xml_reader.h"
#include "lib/protocol/xml_text.h"

namespace tharsis {

namespace {

class RequestWriter {
 public:
  void text(const char* tag, std::string_view value) { line(tag, xml_escape(value)); }
  void number(const char* tag, double value) { line(tag, format_double(value)); }
  void integer(const char* tag, int64_t value) { line(tag, format_int(value)); }
  void open(const char* tag) { out_ += "<" + std::string(tag) + ">\n"; }
  void close(const char* tag) { out_ += "</" + std::string(tag) + ">\n"; }
  void literal(std::string_view text) { out_ += text; }
  std::string take() { return std::move(out_); }

 private:
  void line(const char* tag, const std::string& value) {
    out_ += "    ";
    append_element(out_, tag, value);
  }
  std::string out_;
};

// stderr goes into CDATA like the stock client writes it; "]]>" inside is split across
// two sections so the text survives unchanged.
std::string cdata(std::string_view text) {
  std::string out = "<![CDATA[\n";
  size_t start = 0;
  for (size_t at = text.find("]]>"); at != std::string_view::npos; at = text.find("]]>", start)) {
    out += text.substr(start, at + 2 - start);
    out += "]]><![CDATA[";
    start = at + 2;
  }
  out += text.substr(start);
  out += "]]>\n";
  return out;
}

void write_result(RequestWriter& w, const ReportedResult& result) {
  w.open("result");
  w.text("name", result.name);
  w.number("final_cpu_time", result.final_cpu_time);
  w.number("final_elapsed_time", result.final_elapsed_time);
  w.integer("exit_status", result.exit_status);
  w.integer("state", result.state);
  w.text("platform", result.platform);
  w.integer("version_num", result.version_num);
  if (!result.plan_class.empty()) w.text("plan_class", result.plan_class);
  if (result.fpops_cumulative != 0) w.number("fpops_cumulative", result.fpops_cumulative);
  if (result.peak_working_set_size != 0)
    w.number("final_peak_working_set_size", result.peak_working_set_size);
  if (result.peak_swap_size != 0) w.number("final_peak_swap_size", result.peak_swap_size);
  if (result.peak_disk_usage != 0) w.number("final_peak_disk_usage", result.peak_disk_usage);
  w.integer("app_version_num", result.app_version_num);
  w.literal("<stderr_out>\n");
  if (!result.core_client_version.empty()) {
    w.literal("<core_client_version>" + xml_escape(result.core_client_version) + "</core_client_version>\n");
  }
  if (!result.stderr_out.empty()) w.literal(cdata(result.stderr_out));
  w.literal("</stderr_out>\n");
  for (const auto& file : result.output_files) {
    w.open("file_info");
    w.text("name", file.name);
    w.number("nbytes", file.nbytes);
    w.number("max_nbytes", file.max_nbytes);
    if (!file.md5_cksum.empty()) w.text("md5_cksum", file.md5_cksum);
    w.close("file_info");
  }
  w.close("result");
}

}  // namespace

std::string render_scheduler_request(const SchedulerRequest& r) {
  RequestWriter w;
  w.open("scheduler_request");
  w.text("authenticator", r.authenticator);
  w.integer("hostid", r.hostid);
  w.integer("rpc_seqno", r.rpc_seqno);
  w.integer("core_client_major_version", r.core_client.major);
  w.integer("core_client_minor_version", r.core_client.minor);
  w.integer("core_client_release", r.core_client.release);
  w.number("resource_share_fraction", r.resource_share_fraction);
  w.number("rrs_fraction", r.rrs_fraction);
  w.number("prrs_fraction", r.prrs_fraction);
  w.number("duration_correction_factor", r.duration_correction_factor);
  w.integer("dont_send_work", r.dont_send_work ? 1 : 0);
  w.number("work_req_seconds", r.work_req_seconds);
  w.number("cpu_req_secs", r.cpu_req_secs);
  w.number("cpu_req_instances", r.cpu_req_instances);
  w.number("estimated_delay", r.estimated_delay);
  w.integer("client_cap_plan_class", 1);
  w.text("platform_name", r.platform_name);
  for (const auto& platform : r.alt_platforms) {
    w.literal("    <alt_platform>\n        <name>" + xml_escape(platform) + "</name>\n    </alt_platform>\n");
  }
  if (!r.code_sign_key.empty())
    w.literal("    <code_sign_key>\n" + xml_escape(r.code_sign_key) + "\n</code_sign_key>\n");
  if (!r.cross_project_id.empty()) w.text("cross_project_id", r.cross_project_id);
  const TimeStats& t = r.time_stats;
  w.open("time_stats");
  w.number("on_frac", t.on_frac);
  w.number("connected_frac", t.connected_frac);
  w.number("cpu_and_network_available_frac", t.cpu_and_network_available_frac);
  w.number("active_frac", t.active_frac);
  w.number("gpu_active_frac", t.gpu_active_frac);
  w.number("client_start_time", t.client_start_time);
  w.number("now", t.now);
  w.number("previous_uptime", t.previous_uptime);
  w.close("time_stats");
  const NetStats& n = r.net_stats;
  w.open("net_stats");
  w.number("bwup", n.bwup);
  w.number("avg_up", n.avg_up);
  w.number("avg_time_up", n.avg_time_up);
  w.number("bwdown", n.bwdown);
  w.number("avg_down", n.avg_down);
  w.number("avg_time_down", n.avg_time_down);
  w.close("net_stats");
  const HostInfo& h = r.host;
  w.open("host_info");
  w.integer("timezone", h.timezone);
  w.text("domain_name", h.domain_name);
  w.text("ip_addr", h.ip_addr);
  w.text("host_cpid", h.host_cpid);
  w.integer("p_ncpus", h.p_ncpus);
  w.text("p_vendor", h.p_vendor);
  w.text("p_model", h.p_model);
  w.text("p_features", h.p_features);
  w.number("p_fpops", h.p_fpops);
  w.number("p_iops", h.p_iops);
  w.number("p_membw", h.p_membw);
  w.number("p_calculated", h.p_calculated);
  w.number("m_nbytes", h.m_nbytes);
  w.number("m_cache", h.m_cache);
  w.number("m_swap", h.m_swap);
  w.number("d_total", h.d_total);
  w.number("d_free", h.d_free);
  w.text("os_name", h.os_name);
  w.text("os_version", h.os_version);
  w.integer("n_usable_coprocs", h.n_usable_coprocs);
  if (!h.product_name.empty()) w.text("product_name", h.product_name);
  w.close("host_info");
  const DiskUsage& d = r.disk_usage;
  w.open("disk_usage");
  w.number("d_boinc_used_total", d.d_boinc_used_total);
  w.number("d_boinc_used_project", d.d_boinc_used_project);
  w.number("d_project_share", d.d_project_share);
  w.close("disk_usage");
  for (const auto& result : r.results) write_result(w, result);
  for (const auto& file : r.held_files) {
    w.open("file_info");
    w.text("name", file.name);
    w.number("nbytes", file.nbytes);
    w.integer("status", file.status);
    w.close("file_info");
  }
  w.open("app_versions");
  for (const auto& version : r.app_versions) {
    w.open("app_version");
    w.text("app_name", version.app_name);
    w.integer("version_num", version.version_num);
    w.text("platform", version.platform);
    if (!version.plan_class.empty()) w.text("plan_class", version.plan_class);
    w.close("app_version");
  }
  w.close("app_versions");
  if (r.have_other_results) {
    w.open("other_results");
    for (const auto& other : r.other_results) {
      w.open("other_result");
      w.text("name", other.name);
      w.integer("app_version", other.app_version);
      if (!other.plan_class.empty()) w.text("plan_class", other.plan_class);
      w.close("other_result");
    }
    w.close("other_results");
  }
  if (r.have_in_progress_results) {
    w.open("in_progress_results");
    for (const auto& item : r.in_progress_results) {
      w.open("ip_result");
      w.text("name", item.name);
      w.number("report_deadline", item.report_deadline);
      w.number("time_remaining", item.time_remaining);
      w.number("avg_ncpus", item.avg_ncpus);
      w.close("ip_result");
    }
    w.close("in_progress_results");
  }
  if (!r.client_brand.empty()) w.text("client_brand", r.client_brand);
  w.close("scheduler_request");
  return w.take();
}

namespace {

// A name tharsis-client makes a path of (projects/NAME, slots/NAME_N, a slot link): "../x",
// "/etc/x" and the like would let a hostile project write or delete outside the client's
// data dir, so the reply is refused, as the BOINC client refuses a bad file name (found
// by fuzzing). Empty stays empty (not sent) unless `required`.
Status path_name(const XmlReader& x, pugi::xml_node node, const std::string& path, std::string& out,
                 bool required = false) {
  if (auto status = x.name(node, path, out); !status) return status;
  if (out.empty() && !required) return Status::success();
  if (auto reason = unsafe_file_name_reason(out); !reason.empty()) {
    return x.error(node, path, "unsafe name " + quote_for_message(out) + ": " + reason);
  }
  return Status::success();
}

Status read_file_ref(const XmlReader& x, pugi::xml_node node, const std::string& path, ReplyFileRef& ref) {
  return read_children(
      node, path,
      {{"file_name", [&](auto n, const auto& p) { return path_name(x, n, p, ref.file_name); }},
       {"open_name", [&](auto n, const auto& p) { return path_name(x, n, p, ref.open_name); }},
       {"main_program", [&](auto n, const auto& p) { return x.boolean(n, p, ref.main_program); }},
       {"copy_file", [&](auto n, const auto& p) { return x.boolean(n, p, ref.copy_file); }},
       {"optional", [&](auto n, const auto& p) { return x.boolean(n, p, ref.optional); }}});
}

ChildReader file_refs_into(const XmlReader& x, std::vector<ReplyFileRef>& refs) {
  return [&x, &refs](pugi::xml_node n, const std::string& p) {
    ReplyFileRef ref;
    auto status = read_file_ref(x, n, p, ref);
    if (status) refs.push_back(std::move(ref));
    return status;
  };
}

Status read_named(const XmlReader& x, pugi::xml_node node, const std::string& path,
                  std::vector<std::string>& out) {
  std::string name;
  auto status =
      read_children(node, path, {{"name", [&](auto n, const auto& p) { return x.name(n, p, name); }}});
  if (status) out.push_back(std::move(name));
  return status;
}

}  // namespace

Result<SchedulerReply> parse_scheduler_reply(std::string_view xml, const ProtocolLimits& limits) {
  size_t start = xml.find("<scheduler_reply");
  if (start == std::string_view::npos) return make_error("scheduler_reply: no <scheduler_reply> element");
  std::string_view body = xml.substr(start);
  XmlReader x(body, limits, "scheduler_reply");
  if (auto status = x.load("scheduler_reply"); !status) return Error{status.error()};
  SchedulerReply reply;
  reply.dont_use_dcf = false;
  ReplyUser user;
  bool have_user = false;
  double request_delay = 0, next_rpc_delay = 0;
  auto hex = [&x](std::string& out) {
    return [&x, &out](pugi::xml_node n, const std::string& p) {
      return x.text(n, p, x.limits().max_text_bytes, true, out);
    };
  };
  auto user_field = [&have_user](Status status) {
    have_user = true;
    return status;
  };
  ChildReaders table = {
      {"scheduler_version", [&](auto n, const auto& p) { return x.integer(n, p, reply.scheduler_version); }},
      {"dont_use_dcf", [&](auto n, const auto& p) { return x.boolean(n, p, reply.dont_use_dcf); }},
      {"master_url",
       [&](auto n, const auto& p) {
         return x.text(n, p, x.limits().max_text_bytes, true, reply.master_url);
       }},
      {"project_name",
       [&](auto n, const auto& p) {
         return x.text(n, p, x.limits().max_text_bytes, true, reply.project_name);
       }},
      {"request_delay",
       [&](auto n, const auto& p) {
         auto status = x.number(n, p, request_delay);
         if (status) reply.request_delay = request_delay;
         return status;
       }},
      {"next_rpc_delay",
       [&](auto n, const auto& p) {
         auto status = x.number(n, p, next_rpc_delay);
         if (status) reply.next_rpc_delay = next_rpc_delay;
         return status;
       }},
      {"message",
       [&](auto n, const auto& p) {
         ReplyMessage message;
         std::string_view priority = n.attribute("priority").value();
         message.priority = priority == "notice" ? MessagePriority::Notice
                            : priority == "high" ? MessagePriority::High
                                                 : MessagePriority::Low;
         auto status = x.text(n, p, x.limits().max_text_bytes, false, message.text);
         if (status) reply.messages.push_back(std::move(message));
         return status;
       }},
      {"project_is_down", [&](auto n, const auto& p) { return x.boolean(n, p, reply.project_is_down); }},
      {"send_full_workload",
       [&](auto n, const auto& p) { return x.boolean(n, p, reply.send_full_workload); }},
      {"userid", [&](auto n, const auto& p) { return user_field(x.integer(n, p, user.userid)); }},
      {"user_name", [&](auto n, const auto& p) { return user_field(x.name(n, p, user.name)); }},
      {"user_total_credit",
       [&](auto n, const auto& p) { return user_field(x.number(n, p, user.total_credit)); }},
      {"user_expavg_credit",
       [&](auto n, const auto& p) { return user_field(x.number(n, p, user.expavg_credit)); }},
      {"user_create_time",
       [&](auto n, const auto& p) { return user_field(x.integer(n, p, user.create_time)); }},
      {"email_hash", [&](auto n, const auto& p) { return user_field(x.name(n, p, user.email_hash)); }},
      {"cross_project_id",
       [&](auto n, const auto& p) { return user_field(x.name(n, p, user.cross_project_id)); }},
      {"external_cpid", [&](auto n, const auto& p) { return user_field(x.name(n, p, user.external_cpid)); }},
      {"teamid", [&](auto n, const auto& p) { return user_field(x.integer(n, p, user.teamid)); }},
      {"team_name", [&](auto n, const auto& p) { return user_field(x.name(n, p, user.team_name)); }},
      {"hostid", [&](auto n, const auto& p) { return x.integer(n, p, reply.hostid); }},
      {"host_total_credit",
       [&](auto n, const auto& p) {
         reply.include_host_fields = true;
         return x.number(n, p, reply.host_total_credit);
       }},
      {"host_expavg_credit", [&](auto n, const auto& p) { return x.number(n, p, reply.host_expavg_credit); }},
      {"host_venue", [&](auto n, const auto& p) { return x.name(n, p, reply.host_venue); }},
      {"host_create_time", [&](auto n, const auto& p) { return x.integer(n, p, reply.host_create_time); }},
      {"result_ack", [&](auto n, const auto& p) { return read_named(x, n, p, reply.result_acks); }},
      {"result_abort", [&](auto n, const auto& p) { return read_named(x, n, p, reply.result_aborts); }},
      {"result_abort_if_not_started",
       [&](auto n, const auto& p) { return read_named(x, n, p, reply.result_aborts_if_not_started); }},
      {"app",
       [&](auto n, const auto& p) {
         ReplyApp app;
         auto status = read_children(
             n, p,
             {{"name", [&](auto c, const auto& cp) { return x.name(c, cp, app.name); }},
              {"user_friendly_name",
               [&](auto c, const auto& cp) { return x.name(c, cp, app.user_friendly_name); }},
              {"non_cpu_intensive",
               [&](auto c, const auto& cp) { return x.boolean(c, cp, app.non_cpu_intensive); }}});
         if (status) reply.apps.push_back(std::move(app));
         return status;
       }},
      {"file_info",
       [&](auto n, const auto& p) {
         ReplyFileInfo file;
         auto url_into = [&x](std::vector<std::string>& urls) {
           return [&x, &urls](pugi::xml_node c, const std::string& cp) {
             std::string url;
             auto status = x.text(c, cp, x.limits().max_text_bytes, true, url);
             if (status) urls.push_back(std::move(url));
             return status;
           };
         };
         auto status = read_children(
             n, p,
             {{"name", [&](auto c, const auto& cp) { return path_name(x, c, cp, file.name); }},
              {"url", url_into(file.download_urls)},
              {"download_url", url_into(file.download_urls)},
              {"upload_url", url_into(file.upload_urls)},
              {"md5_cksum", [&](auto c, const auto& cp) { return x.name(c, cp, file.md5_cksum); }},
              {"nbytes", [&](auto c, const auto& cp) { return x.number(c, cp, file.nbytes); }},
              {"max_nbytes", [&](auto c, const auto& cp) { return x.number(c, cp, file.max_nbytes); }},
              {"executable", [&](auto c, const auto& cp) { return x.boolean(c, cp, file.executable); }},
              {"sticky", [&](auto c, const auto& cp) { return x.boolean(c, cp, file.sticky); }},
              {"no_delete", [&](auto c, const auto& cp) { return x.boolean(c, cp, file.no_delete); }},
              {"file_signature", hex(file.file_signature)},
              {"xml_signature", hex(file.xml_signature)}});
         if (status) reply.file_infos.push_back(std::move(file));
         return status;
       }},
      {"app_version",
       [&](auto n, const auto& p) {
         ReplyAppVersion version;
         auto status = read_children(
             n, p,
             {{"app_name", [&](auto c, const auto& cp) { return x.name(c, cp, version.app_name); }},
              {"version_num", [&](auto c, const auto& cp) { return x.integer(c, cp, version.version_num); }},
              {"api_version", [&](auto c, const auto& cp) { return x.name(c, cp, version.api_version); }},
              {"platform", [&](auto c, const auto& cp) { return x.name(c, cp, version.platform); }},
              {"plan_class", [&](auto c, const auto& cp) { return x.name(c, cp, version.plan_class); }},
              {"avg_ncpus", [&](auto c, const auto& cp) { return x.number(c, cp, version.avg_ncpus); }},
              {"flops", [&](auto c, const auto& cp) { return x.number(c, cp, version.flops); }},
              {"cmdline",
               [&](auto c, const auto& cp) {
                 return x.text(c, cp, x.limits().max_text_bytes, true, version.cmdline);
               }},
              {"file_ref", file_refs_into(x, version.file_refs)}});
         if (status) reply.app_versions.push_back(std::move(version));
         return status;
       }},
      {"workunit",
       [&](auto n, const auto& p) {
         ReplyWorkunit wu;
         auto status = read_children(
             n, p,
             {{"name", [&](auto c, const auto& cp) { return x.name(c, cp, wu.name); }},
              {"app_name", [&](auto c, const auto& cp) { return x.name(c, cp, wu.app_name); }},
              {"version_num", [&](auto c, const auto& cp) { return x.integer(c, cp, wu.version_num); }},
              {"command_line",
               [&](auto c, const auto& cp) {
                 return x.text(c, cp, x.limits().max_text_bytes, true, wu.command_line);
               }},
              {"rsc_fpops_est", [&](auto c, const auto& cp) { return x.number(c, cp, wu.rsc_fpops_est); }},
              {"rsc_fpops_bound",
               [&](auto c, const auto& cp) { return x.number(c, cp, wu.rsc_fpops_bound); }},
              {"rsc_memory_bound",
               [&](auto c, const auto& cp) { return x.number(c, cp, wu.rsc_memory_bound); }},
              {"rsc_disk_bound", [&](auto c, const auto& cp) { return x.number(c, cp, wu.rsc_disk_bound); }},
              {"file_ref", file_refs_into(x, wu.file_refs)}});
         if (status) reply.workunits.push_back(std::move(wu));
         return status;
       }},
      {"result",
       [&](auto n, const auto& p) {
         ReplyResult result;
         auto status = read_children(
             n, p,
             {{"name", [&](auto c, const auto& cp) { return path_name(x, c, cp, result.name); }},
              {"wu_name", [&](auto c, const auto& cp) { return x.name(c, cp, result.wu_name); }},
              {"report_deadline",
               [&](auto c, const auto& cp) { return x.integer(c, cp, result.report_deadline); }},
              {"platform", [&](auto c, const auto& cp) { return x.name(c, cp, result.platform); }},
              {"plan_class", [&](auto c, const auto& cp) { return x.name(c, cp, result.plan_class); }},
              {"version_num", [&](auto c, const auto& cp) { return x.integer(c, cp, result.version_num); }},
              {"report_immediately",
               [&](auto c, const auto& cp) { return x.boolean(c, cp, result.report_immediately); }},
              {"file_ref", file_refs_into(x, result.file_refs)}});
         if (status) reply.results.push_back(std::move(result));
         return status;
       }},
      {"code_sign_key", hex(reply.code_sign_key)},
      {"code_sign_key_signature", hex(reply.code_sign_key_signature)},
      {"delete_file_info",
       [&](auto n, const auto& p) {
         std::string name;
         auto status = path_name(x, n, p, name, true);
         if (status) reply.file_deletes.push_back(std::move(name));
         return status;
       }},
  };
  if (auto status = read_children(x.root(), "scheduler_reply", table); !status) return Error{status.error()};
  if (have_user) reply.user = user;
  return reply;
}

}  // namespace tharsis
