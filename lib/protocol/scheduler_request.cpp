// Implementation of lib/protocol/scheduler_request.h. Each element of the request is read
// by one small function over the XmlReader; every failure carries the element's path.
#include "lib/protocol/scheduler_request.h"

#include <functional>
#include <map>
#include <set>

#include "lib/protocol/utf8.h"
#include "lib/protocol/xml_reader.h"

namespace tharsis {

namespace {

// Table builders: bind an element name to a typed destination.
struct Fields {
  const XmlReader& reader;
  ChildReaders table;

  Fields& name(std::string_view tag, std::string& out) {
    table[tag] = [this, &out](pugi::xml_node node, const std::string& path) {
      return reader.name(node, path, out);
    };
    return *this;
  }
  Fields& text(std::string_view tag, std::string& out) {
    table[tag] = [this, &out](pugi::xml_node node, const std::string& path) {
      return reader.text(node, path, reader.limits().max_text_bytes, true, out);
    };
    return *this;
  }
  Fields& number(std::string_view tag, double& out) {
    table[tag] = [this, &out](pugi::xml_node node, const std::string& path) {
      return reader.number(node, path, out);
    };
    return *this;
  }
  Fields& integer(std::string_view tag, int& out) {
    table[tag] = [this, &out](pugi::xml_node node, const std::string& path) {
      return reader.integer(node, path, out);
    };
    return *this;
  }
  Fields& integer(std::string_view tag, int64_t& out) {
    table[tag] = [this, &out](pugi::xml_node node, const std::string& path) {
      return reader.integer(node, path, out);
    };
    return *this;
  }
  Fields& boolean(std::string_view tag, bool& out) {
    table[tag] = [this, &out](pugi::xml_node node, const std::string& path) {
      return reader.boolean(node, path, out);
    };
    return *this;
  }
  Fields& custom(std::string_view tag, ChildReader reader_fn) {
    table[tag] = std::move(reader_fn);
    return *this;
  }
  Status read(pugi::xml_node parent, const std::string& path) const {
    return read_children(parent, path, table);
  }
};

Status require_name(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                    const std::string& name) {
  if (name.empty()) return reader.error(node, path, "missing or empty <name>");
  return Status::success();
}

Status read_host_info(const XmlReader& reader, pugi::xml_node node, const std::string& path, HostInfo& host) {
  Fields fields{reader, {}};
  fields.integer("timezone", host.timezone)
      .name("domain_name", host.domain_name)
      .name("ip_addr", host.ip_addr)
      .name("host_cpid", host.host_cpid)
      .integer("p_ncpus", host.p_ncpus)
      .name("p_vendor", host.p_vendor)
      .name("p_model", host.p_model)
      .text("p_features", host.p_features)
      .number("p_fpops", host.p_fpops)
      .number("p_iops", host.p_iops)
      .number("p_membw", host.p_membw)
      .number("p_calculated", host.p_calculated)
      .number("m_nbytes", host.m_nbytes)
      .number("m_cache", host.m_cache)
      .number("m_swap", host.m_swap)
      .number("d_total", host.d_total)
      .number("d_free", host.d_free)
      .name("os_name", host.os_name)
      .text("os_version", host.os_version)
      .name("product_name", host.product_name)
      .integer("n_usable_coprocs", host.n_usable_coprocs);
  return fields.read(node, path);
}

Status read_time_stats(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                       TimeStats& stats) {
  Fields fields{reader, {}};
  fields.number("on_frac", stats.on_frac)
      .number("connected_frac", stats.connected_frac)
      .number("cpu_and_network_available_frac", stats.cpu_and_network_available_frac)
      .number("active_frac", stats.active_frac)
      .number("gpu_active_frac", stats.gpu_active_frac)
      .number("client_start_time", stats.client_start_time)
      .number("now", stats.now)
      .number("previous_uptime", stats.previous_uptime);
  return fields.read(node, path);
}

Status read_net_stats(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                      NetStats& stats) {
  Fields fields{reader, {}};
  fields.number("bwup", stats.bwup)
      .number("avg_up", stats.avg_up)
      .number("avg_time_up", stats.avg_time_up)
      .number("bwdown", stats.bwdown)
      .number("avg_down", stats.avg_down)
      .number("avg_time_down", stats.avg_time_down);
  return fields.read(node, path);
}

Status read_disk_usage(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                       DiskUsage& usage) {
  Fields fields{reader, {}};
  fields.number("d_boinc_used_total", usage.d_boinc_used_total)
      .number("d_boinc_used_project", usage.d_boinc_used_project)
      .number("d_project_share", usage.d_project_share);
  return fields.read(node, path);
}

// <stderr_out>: the client writes "<core_client_version>X</core_client_version>" and then
// the application's stderr in a CDATA section that starts with a newline. Applications'
// stderr is often not UTF-8 (binary output, Latin-1 locales): what is not becomes U+FFFD,
// and the text is cut to the limit at a character boundary.
Status read_stderr(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                   ReportedResult& result) {
  const ProtocolLimits& limits = reader.limits();
  const size_t keep = limits.max_stderr_bytes + 4;  // the limit, the leading newline, a cut character
  std::string text;
  for (pugi::xml_node child : node.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) {
      text += child.value();
      if (text.size() > keep) {
        if (!limits.truncate_stderr) break;
        text.resize(keep);
      }
    } else if (child.type() == pugi::node_element) {
      if (std::string_view(child.name()) != "core_client_version") {
        return reader.error(child, path,
                            "unexpected element <" + std::string(child.name()) + "> in stderr text");
      }
      if (auto status =
              reader.name(child, child_path(path, "core_client_version"), result.core_client_version);
          !status) {
        return status;
      }
    }
  }
  if (!text.empty() && text.front() == '\n') text.erase(0, 1);
  if (text.size() > limits.max_stderr_bytes && !limits.truncate_stderr) {
    return reader.error(
        node, path, "stderr longer than the limit of " + std::to_string(limits.max_stderr_bytes) + " bytes");
  }
  // Replacing only grows the text, so whatever lay beyond the limit (a character cut by
  // the read above included) lies beyond it after too, and is cut off with it.
  std::string valid = valid_utf8_or_replaced(text);
  if (valid.size() > limits.max_stderr_bytes) {
    valid.resize(utf8_prefix_bytes(valid, limits.max_stderr_bytes).size());
    result.stderr_truncated = true;
  }
  result.stderr_out = std::move(valid);
  return Status::success();
}

Status read_reported_file(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                          ReportedFile& file) {
  Fields fields{reader, {}};
  fields.name("name", file.name)
      .number("nbytes", file.nbytes)
      .number("max_nbytes", file.max_nbytes)
      .name("md5_cksum", file.md5_cksum);
  if (auto status = fields.read(node, path); !status) return status;
  return require_name(reader, node, path, file.name);
}

Status read_result(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                   ReportedResult& result) {
  Fields fields{reader, {}};
  fields.name("name", result.name)
      .integer("state", result.state)
      .number("final_cpu_time", result.final_cpu_time)
      .number("final_elapsed_time", result.final_elapsed_time)
      .integer("exit_status", result.exit_status)
      .name("platform", result.platform)
      .name("plan_class", result.plan_class)
      .integer("version_num", result.version_num)
      .integer("app_version_num", result.app_version_num)
      .number("final_peak_working_set_size", result.peak_working_set_size)
      .number("final_peak_swap_size", result.peak_swap_size)
      .number("final_peak_disk_usage", result.peak_disk_usage)
      .number("fpops_cumulative", result.fpops_cumulative)
      .custom("stderr_out",
              [&reader, &result](pugi::xml_node child, const std::string& child_path_text) {
                return read_stderr(reader, child, child_path_text, result);
              })
      .custom("file_info", [&reader, &result](pugi::xml_node child, const std::string& child_path_text) {
        if (result.output_files.size() >= reader.limits().max_file_infos) {
          return Status(
              reader.error(child, child_path_text,
                           "more than " + std::to_string(reader.limits().max_file_infos) + " output files"));
        }
        ReportedFile file;
        auto status = read_reported_file(
            reader, child, child_path_text + "[" + std::to_string(result.output_files.size() + 1) + "]",
            file);
        if (status) result.output_files.push_back(std::move(file));
        return status;
      });
  if (auto status = fields.read(node, path); !status) return status;
  return require_name(reader, node, path, result.name);
}

Status read_other_results(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                          std::vector<OtherResult>& out) {
  size_t index = 0;
  for (pugi::xml_node child : node.children("other_result")) {
    std::string item_path = child_path(path, "other_result", ++index);
    if (index > reader.limits().max_other_results) {
      return reader.error(
          child, item_path,
          "more than " + std::to_string(reader.limits().max_other_results) + " other results");
    }
    OtherResult other;
    Fields fields{reader, {}};
    fields.name("name", other.name)
        .integer("app_version", other.app_version)
        .name("plan_class", other.plan_class);
    if (auto status = fields.read(child, item_path); !status) return status;
    if (auto status = require_name(reader, child, item_path, other.name); !status) return status;
    out.push_back(std::move(other));
  }
  return Status::success();
}

Status read_in_progress(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                        std::vector<InProgressResult>& out) {
  size_t index = 0;
  for (pugi::xml_node child : node.children("ip_result")) {
    std::string item_path = child_path(path, "ip_result", ++index);
    if (index > reader.limits().max_other_results) {
      return reader.error(
          child, item_path,
          "more than " + std::to_string(reader.limits().max_other_results) + " in-progress results");
    }
    InProgressResult item;
    Fields fields{reader, {}};
    fields.name("name", item.name)
        .number("report_deadline", item.report_deadline)
        .number("time_remaining", item.time_remaining)
        .number("avg_ncpus", item.avg_ncpus);
    if (auto status = fields.read(child, item_path); !status) return status;
    out.push_back(std::move(item));
  }
  return Status::success();
}

Status read_app_versions(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                         std::vector<ClientAppVersion>& out) {
  size_t index = 0;
  for (pugi::xml_node child : node.children("app_version")) {
    std::string item_path = child_path(path, "app_version", ++index);
    if (index > reader.limits().max_other_results) {
      return reader.error(child, item_path,
                          "more than " + std::to_string(reader.limits().max_other_results) + " app versions");
    }
    ClientAppVersion version;
    Fields fields{reader, {}};
    fields.name("app_name", version.app_name)
        .integer("version_num", version.version_num)
        .name("platform", version.platform)
        .name("plan_class", version.plan_class);
    if (auto status = fields.read(child, item_path); !status) return status;
    out.push_back(std::move(version));
  }
  return Status::success();
}

}  // namespace

Result<SchedulerRequest> parse_scheduler_request(std::string_view xml, const ProtocolLimits& limits) {
  XmlReader reader(xml, limits, "scheduler_request");
  if (auto status = reader.load("scheduler_request"); !status) return Error{status.error()};

  SchedulerRequest request;
  std::set<std::string> reported_names;
  size_t result_index = 0, file_index = 0;
  Fields fields{reader, {}};
  fields.name("authenticator", request.authenticator)
      .integer("hostid", request.hostid)
      .integer("rpc_seqno", request.rpc_seqno)
      .integer("core_client_major_version", request.core_client.major)
      .integer("core_client_minor_version", request.core_client.minor)
      .integer("core_client_release", request.core_client.release)
      .name("platform_name", request.platform_name)
      .number("work_req_seconds", request.work_req_seconds)
      .number("cpu_req_secs", request.cpu_req_secs)
      .number("cpu_req_instances", request.cpu_req_instances)
      .number("estimated_delay", request.estimated_delay)
      .number("resource_share_fraction", request.resource_share_fraction)
      .number("rrs_fraction", request.rrs_fraction)
      .number("prrs_fraction", request.prrs_fraction)
      .number("duration_correction_factor", request.duration_correction_factor)
      .boolean("dont_send_work", request.dont_send_work)
      .name("cross_project_id", request.cross_project_id)
      .name("client_brand", request.client_brand)
      .text("code_sign_key", request.code_sign_key)
      .custom(
          "alt_platform",
          [&](pugi::xml_node node, const std::string& path) {
            if (request.alt_platforms.size() >= limits.max_platforms) {
              return Status(reader.error(
                  node, path, "more than " + std::to_string(limits.max_platforms) + " alternate platforms"));
            }
            std::string name;
            Fields platform{reader, {}};
            platform.name("name", name);
            if (auto status = platform.read(node, path); !status) return status;
            if (!name.empty()) request.alt_platforms.push_back(name);
            return Status::success();
          })
      .custom("host_info",
              [&](pugi::xml_node node, const std::string& path) {
                return read_host_info(reader, node, path, request.host);
              })
      .custom("time_stats",
              [&](pugi::xml_node node, const std::string& path) {
                return read_time_stats(reader, node, path, request.time_stats);
              })
      .custom("net_stats",
              [&](pugi::xml_node node, const std::string& path) {
                return read_net_stats(reader, node, path, request.net_stats);
              })
      .custom("disk_usage",
              [&](pugi::xml_node node, const std::string& path) {
                return read_disk_usage(reader, node, path, request.disk_usage);
              })
      .custom(
          "result",
          [&](pugi::xml_node node, const std::string& path) {
            std::string item_path = path + "[" + std::to_string(++result_index) + "]";
            if (result_index > limits.max_results) {
              return Status(reader.error(
                  node, item_path, "more than " + std::to_string(limits.max_results) + " reported results"));
            }
            ReportedResult result;
            if (auto status = read_result(reader, node, item_path, result); !status) return status;
            // A result reported twice in one request is the same report: keep the first.
            if (reported_names.insert(result.name).second) request.results.push_back(std::move(result));
            return Status::success();
          })
      .custom("file_info",
              [&](pugi::xml_node node, const std::string& path) {
                std::string item_path = path + "[" + std::to_string(++file_index) + "]";
                if (file_index > limits.max_file_infos) {
                  return Status(reader.error(
                      node, item_path, "more than " + std::to_string(limits.max_file_infos) + " held files"));
                }
                HeldFile file;
                Fields held{reader, {}};
                held.name("name", file.name).number("nbytes", file.nbytes).integer("status", file.status);
                if (auto status = held.read(node, item_path); !status) return status;
                if (auto status = require_name(reader, node, item_path, file.name); !status) return status;
                request.held_files.push_back(std::move(file));
                return Status::success();
              })
      .custom("other_results",
              [&](pugi::xml_node node, const std::string& path) {
                request.have_other_results = true;
                return read_other_results(reader, node, path, request.other_results);
              })
      .custom("in_progress_results",
              [&](pugi::xml_node node, const std::string& path) {
                request.have_in_progress_results = true;
                return read_in_progress(reader, node, path, request.in_progress_results);
              })
      .custom("app_versions", [&](pugi::xml_node node, const std::string& path) {
        return read_app_versions(reader, node, path, request.app_versions);
      });
  if (auto status = fields.read(reader.root(), "scheduler_request"); !status) return Error{status.error()};
  return request;
}

}  // namespace tharsis
