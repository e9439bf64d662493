// Implementation of sched/lib/submit/job_files.h.
#include "sched/lib/submit/job_files.h"

#include <sys/stat.h>

#include "lib/crypto/md5.h"
#include "lib/fanout.h"
#include "lib/log.h"
#include "lib/text_file.h"
#include "sched/lib/submit/form_body.h"
#include "sched/lib/submit/submit_access.h"
#include "sched/lib/submit/submit_plan.h"
#include "sched/lib/submit/submit_reply.h"
#include "sched/lib/submit/submit_request.h"

namespace tharsis {
namespace {

constexpr size_t kMaxFiles = 10000;  // names per request

Result<std::vector<std::string>> phys_names(const SubmitDocument& doc) {
  auto names = repeated_names(doc, "phys_name", kMaxFiles);
  if (!names.ok()) return names;
  for (const auto& name : *names) {
    if (!is_plain_file_name(name)) return make_error("bad filename '" + name.substr(0, 80) + "'");
  }
  return names;
}

bool in_download(const ProjectConfig& config, const std::string& name) {
  struct stat info {};
  return stat(fanout_path(config.download_dir, name, config.uldl_dir_fanout).c_str(), &info) == 0 &&
         S_ISREG(info.st_mode);
}

Result<std::string> query_files(const SubmitDocument& doc, Database& db, const ProjectConfig& config) {
  auto user = authenticate_with_grant(doc, db);
  if (!user.ok()) return make_error(user.error());
  auto names = phys_names(doc);
  if (!names.ok()) return make_error(names.error());
  std::string out = "<absent_files>\n";
  for (size_t i = 0; i < names->size(); ++i) {
    if (!in_download(config, (*names)[i])) add_field(out, "file", static_cast<int64_t>(i));
  }
  out += "</absent_files>\n";
  return out;
}

Result<std::string> upload_files(const SubmitDocument& doc, std::string_view body, Database& db,
                                 const ProjectConfig& config) {
  auto user = authenticate_with_grant(doc, db);
  if (!user.ok()) return make_error(user.error());
  auto names = phys_names(doc);
  if (!names.ok()) return make_error(names.error());
  auto parts = multipart_parts(body, kMaxFiles + 1);
  if (!parts.ok()) return make_error(parts.error());
  std::vector<std::string_view> files;
  for (const FormPart& part : *parts) {
    if (part.name != "request") files.push_back(part.content);
  }
  if (files.size() != names->size()) {
    return make_error("# of uploaded files (" + std::to_string(files.size()) +
                      ") doesn't agree with request (" + std::to_string(names->size()) + ")");
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (!names_its_content((*names)[i], files[i])) {
      return make_error("file " + std::to_string(i) + ": name '" + (*names)[i] +
                        "' is not jf_ and the md5 of its content (" + md5_hex(files[i]) + ")");
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (in_download(config, (*names)[i])) continue;  // the same content: immutable
    auto path = fanout_path_create(config.download_dir, (*names)[i], config.uldl_dir_fanout);
    if (!path.ok()) return make_error(path.error());
    if (Status written = write_text_file(*path, files[i]); !written.ok()) return make_error(written.error());
  }
  return std::string("<success/>\n");
}

}  // namespace

bool names_its_content(std::string_view name, std::string_view content) {
  return name.size() == 35 && name.substr(0, 3) == "jf_" && name.substr(3) == md5_hex(content);
}

std::string handle_job_file_rpc(std::string_view body, Database& db, const ProjectConfig& config,
                                const SubmitLimits& limits) {
  auto text = extract_request_document(body);
  if (!text.ok()) return render_submit_error("", "can't parse request message: " + text.error());
  SubmitLimits small = limits;
  small.max_jobs = kMaxFiles / 32 + 1;  // node budget: about 32 per name
  auto doc = load_submit_document(std::move(*text), small);
  if (!doc.ok()) return render_submit_error("", "can't parse request message: " + doc.error());
  const std::string& op = (*doc)->operation;
  Result<std::string> reply = make_error("no such action");
  if (op == "query_files") {
    reply = query_files(**doc, db, config);
  } else if (op == "upload_files") {
    reply = upload_files(**doc, body, db, config);
  } else {
    return render_submit_error("", "no such action");
  }
  if (!reply.ok()) {
    log_info("job_file ", op, ": ", reply.error());
    return render_submit_error(op, reply.error());
  }
  return render_submit_reply(op, *reply);
}

}  // namespace tharsis
