// Implementation of client/lib/client_state.h.
#include "client/lib/client_state.h"

#include <unistd.h>

#include <pugixml.hpp>
#include <sstream>

#include "lib/protocol/xml_text.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

constexpr const char* kStateFile = "/client_state.xml";

// ---- writing ----

void put(pugi::xml_node parent, const char* tag, std::string_view value) {
  if (!value.empty()) parent.append_child(tag).text().set(std::string(value).c_str());
}
void put(pugi::xml_node parent, const char* tag, double value) {
  if (value != 0) put(parent, tag, std::string_view(format_double(value)));
}
void put_int(pugi::xml_node parent, const char* tag, int64_t value) {
  if (value != 0) put(parent, tag, std::string_view(format_int(value)));
}
void put_flag(pugi::xml_node parent, const char* tag, bool value) {
  if (value) parent.append_child(tag);
}

void put_refs(pugi::xml_node parent, const std::vector<ClientFileRef>& refs) {
  for (const auto& ref : refs) {
    auto node = parent.append_child("file_ref");
    put(node, "file_name", ref.file_name);
    put(node, "open_name", ref.open_name);
    put_flag(node, "main_program", ref.main_program);
    put_flag(node, "copy_file", ref.copy_file);
  }
}

void put_file(pugi::xml_node parent, const ClientFile& f) {
  auto node = parent.append_child("file");
  put(node, "name", f.name);
  for (const auto& url : f.download_urls) put(node, "url", url);
  for (const auto& url : f.upload_urls) put(node, "upload_url", url);
  put(node, "md5_cksum", f.md5_cksum);
  put(node, "nbytes", f.nbytes);
  put(node, "max_nbytes", f.max_nbytes);
  put_flag(node, "executable", f.executable);
  put(node, "file_signature", f.file_signature);
  put(node, "xml_signature", f.xml_signature);
  put_int(node, "status", static_cast<int>(f.status));
  put_int(node, "failures", f.failures);
  put(node, "next_attempt", f.next_attempt);
  put_flag(node, "upload_started", f.upload_started);
  put(node, "error", f.error);
}

void put_result(pugi::xml_node parent, const ClientResult& r) {
  auto node = parent.append_child("result");
  put(node, "name", r.name);
  put(node, "wu_name", r.wu_name);
  put(node, "platform", r.platform);
  put(node, "plan_class", r.plan_class);
  put_int(node, "version_num", r.version_num);
  put_int(node, "report_deadline", r.report_deadline);
  put(node, "received_time", r.received_time);
  put_refs(node, r.file_refs);
  put(node, "task_state", task_state_name(r.state));
  put_int(node, "report_state", r.report_state);
  put_int(node, "exit_status", r.exit_status);
  put_int(node, "restarts", r.restarts);
  put_int(node, "runs", r.runs);
  put_int(node, "pid", r.pid);
  put(node, "run_started", r.run_started);
  put(node, "elapsed", r.elapsed);
  put(node, "cpu_time", r.cpu_time);
  put(node, "hold_until", r.hold_until);
  put(node, "stderr_text", r.stderr_text);
}

// ---- reading ----

class Reader {
 public:
  std::string text(pugi::xml_node node, const char* tag) { return node.child(tag).text().get(); }
  double number(pugi::xml_node node, const char* tag) {
    auto child = node.child(tag);
    if (!child) return 0;
    auto value = parse_xml_double(child.text().get());
    if (!value) fail(child, "a number");
    return value.value_or(0);
  }
  int64_t integer(pugi::xml_node node, const char* tag) {
    auto child = node.child(tag);
    if (!child) return 0;
    auto value = parse_xml_int(child.text().get());
    if (!value) fail(child, "an integer");
    return value.value_or(0);
  }
  bool flag(pugi::xml_node node, const char* tag) { return static_cast<bool>(node.child(tag)); }
  std::vector<ClientFileRef> refs(pugi::xml_node node) {
    std::vector<ClientFileRef> out;
    for (auto ref : node.children("file_ref")) {
      out.push_back({text(ref, "file_name"), text(ref, "open_name"), flag(ref, "main_program"),
                     flag(ref, "copy_file")});
    }
    return out;
  }
  void fail(pugi::xml_node node, const std::string& expected) {
    if (error.empty()) {
      error = std::string("client state: <") + node.name() + "> expected " + expected + ", found '" +
              quote_for_message(node.text().get()) + "'";
    }
  }
  std::string error;
};

TaskState parse_task_state(Reader& reader, pugi::xml_node node) {
  std::string name = reader.text(node, "task_state");
  for (int s = 0; s <= static_cast<int>(TaskState::Reported); ++s) {
    if (task_state_name(static_cast<TaskState>(s)) == name) return static_cast<TaskState>(s);
  }
  reader.fail(node.child("task_state"), "a task state name");
  return TaskState::Downloading;
}

}  // namespace

std::string_view task_state_name(TaskState state) {
  switch (state) {
    case TaskState::Downloading:
      return "downloading";
    case TaskState::Ready:
      return "ready";
    case TaskState::Running:
      return "running";
    case TaskState::Uploading:
      return "uploading";
    case TaskState::Done:
      return "done";
    case TaskState::Reported:
      return "reported";
  }
  return "unknown";
}

ClientFile* HostState::file(std::string_view name) {
  for (auto& f : files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const ClientFile* HostState::file(std::string_view name) const {
  for (const auto& f : files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const ClientAppVersionRecord* HostState::app_version(std::string_view app_name, int version_num) const {
  for (const auto& v : app_versions) {
    if (v.app_name == app_name && v.version_num == version_num) return &v;
  }
  return nullptr;
}

const ClientWorkunit* HostState::workunit(std::string_view name) const {
  for (const auto& w : workunits) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

ClientResult* HostState::result(std::string_view name) {
  for (auto& r : results) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string render_client_state(const HostState& s) {
  pugi::xml_document doc;
  auto root = doc.append_child("tharsis_client_state");
  put(root, "project_url", s.project_url);
  put(root, "scheduler_url", s.scheduler_url);
  for (const auto& url : s.scheduler_urls) put(root, "scheduler_choice", url);
  put(root, "authenticator", s.authenticator);
  put(root, "project_name", s.project_name);
  put_int(root, "hostid", s.hostid);
  put_int(root, "rpc_seqno", s.rpc_seqno);
  put(root, "host_cpid", s.host_cpid);
  put(root, "code_sign_key", s.code_sign_key);
  put(root, "next_rpc_time", s.next_rpc_time);
  put_int(root, "rpc_failures", s.rpc_failures);
  put(root, "fpops_estimate", s.fpops_estimate);
  for (const auto& f : s.files) put_file(root, f);
  for (const auto& v : s.app_versions) {
    auto node = root.append_child("app_version");
    put(node, "app_name", v.app_name);
    put_int(node, "version_num", v.version_num);
    put(node, "platform", v.platform);
    put(node, "plan_class", v.plan_class);
    put(node, "cmdline", v.cmdline);
    put_refs(node, v.file_refs);
  }
  for (const auto& w : s.workunits) {
    auto node = root.append_child("workunit");
    put(node, "name", w.name);
    put(node, "app_name", w.app_name);
    put_int(node, "version_num", w.version_num);
    put(node, "command_line", w.command_line);
    put(node, "rsc_fpops_est", w.rsc_fpops_est);
    put_refs(node, w.file_refs);
  }
  for (const auto& r : s.results) put_result(root, r);
  std::ostringstream out;
  doc.save(out, "  ");
  return out.str();
}

Result<HostState> parse_client_state(std::string_view xml) {
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(xml.data(), xml.size());
  if (!parsed) {
    return make_error("client state: malformed XML at offset " + std::to_string(parsed.offset) + ": " +
                      parsed.description());
  }
  auto root = doc.child("tharsis_client_state");
  if (!root) return make_error("client state: expected root <tharsis_client_state>");
  Reader x;
  HostState s;
  s.project_url = x.text(root, "project_url");
  s.scheduler_url = x.text(root, "scheduler_url");
  for (auto node : root.children("scheduler_choice")) s.scheduler_urls.emplace_back(node.text().get());
  s.authenticator = x.text(root, "authenticator");
  s.project_name = x.text(root, "project_name");
  s.hostid = x.integer(root, "hostid");
  s.rpc_seqno = static_cast<int>(x.integer(root, "rpc_seqno"));
  s.host_cpid = x.text(root, "host_cpid");
  s.code_sign_key = x.text(root, "code_sign_key");
  s.next_rpc_time = x.number(root, "next_rpc_time");
  s.rpc_failures = static_cast<int>(x.integer(root, "rpc_failures"));
  s.fpops_estimate = x.number(root, "fpops_estimate");
  for (auto node : root.children("file")) {
    ClientFile f;
    f.name = x.text(node, "name");
    for (auto url : node.children("url")) f.download_urls.push_back(url.text().get());
    for (auto url : node.children("upload_url")) f.upload_urls.push_back(url.text().get());
    f.md5_cksum = x.text(node, "md5_cksum");
    f.nbytes = x.number(node, "nbytes");
    f.max_nbytes = x.number(node, "max_nbytes");
    f.executable = x.flag(node, "executable");
    f.file_signature = x.text(node, "file_signature");
    f.xml_signature = x.text(node, "xml_signature");
    int64_t status = x.integer(node, "status");
    if (status < -1 || status > 2) x.fail(node.child("status"), "a file status -1..2");
    f.status = static_cast<ClientFile::Status>(status);
    f.failures = static_cast<int>(x.integer(node, "failures"));
    f.next_attempt = x.number(node, "next_attempt");
    f.upload_started = x.flag(node, "upload_started");
    f.error = x.text(node, "error");
    s.files.push_back(std::move(f));
  }
  for (auto node : root.children("app_version")) {
    s.app_versions.push_back({x.text(node, "app_name"), static_cast<int>(x.integer(node, "version_num")),
                              x.text(node, "platform"), x.text(node, "plan_class"), x.text(node, "cmdline"),
                              x.refs(node)});
  }
  for (auto node : root.children("workunit")) {
    s.workunits.push_back({x.text(node, "name"), x.text(node, "app_name"),
                           static_cast<int>(x.integer(node, "version_num")), x.text(node, "command_line"),
                           x.number(node, "rsc_fpops_est"), x.refs(node)});
  }
  for (auto node : root.children("result")) {
    ClientResult r;
    r.name = x.text(node, "name");
    r.wu_name = x.text(node, "wu_name");
    r.platform = x.text(node, "platform");
    r.plan_class = x.text(node, "plan_class");
    r.version_num = static_cast<int>(x.integer(node, "version_num"));
    r.report_deadline = x.integer(node, "report_deadline");
    r.received_time = x.number(node, "received_time");
    r.file_refs = x.refs(node);
    r.state = parse_task_state(x, node);
    r.report_state = static_cast<int>(x.integer(node, "report_state"));
    r.exit_status = static_cast<int>(x.integer(node, "exit_status"));
    r.restarts = static_cast<int>(x.integer(node, "restarts"));
    r.runs = static_cast<int>(x.integer(node, "runs"));
    r.pid = static_cast<int>(x.integer(node, "pid"));
    r.run_started = x.number(node, "run_started");
    r.elapsed = x.number(node, "elapsed");
    r.cpu_time = x.number(node, "cpu_time");
    r.hold_until = x.number(node, "hold_until");
    r.stderr_text = x.text(node, "stderr_text");
    s.results.push_back(std::move(r));
  }
  if (!x.error.empty()) return make_error(x.error);
  return s;
}

Result<HostState> load_client_state(const std::string& data_dir) {
  std::string path = data_dir + kStateFile;
  auto text = read_text_file(path);
  if (!text.ok()) {
    if (access(path.c_str(), F_OK) != 0) return HostState{};  // a fresh client
    return make_error(text.error());
  }
  auto state = parse_client_state(*text);
  if (!state.ok()) return make_error(path + ": " + state.error());
  return state;
}

Status save_client_state(const std::string& data_dir, const HostState& state) {
  return write_text_file(data_dir + kStateFile, render_client_state(state), 0600);
}

}  // namespace tharsis
