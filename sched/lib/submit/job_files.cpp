// Implementation of sched/lib/submit/job_files.h.
#include "sched/lib/submit/job_files.h"

#include <sys/stat.h>
#include <sys/time.h>

#include <algorithm>

#include "db/batch_store.h"
#include "db/job_file_store.h"
#include "lib/crypto/md5.h"
#include "lib/log.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "sched/lib/submit/form_body.h"
#include "sched/lib/submit/submit_access.h"
#include "sched/lib/submit/submit_plan.h"
#include "sched/lib/submit/submit_reply.h"
#include "sched/lib/submit/submit_request.h"

namespace tharsis {
namespace {

constexpr size_t kMaxFiles = 10000;           // names per request
constexpr int64_t kDefaultHold = 30 * 86400;  // an upload is held this long by default (BOINC: 30 days)
constexpr int64_t kMaxHold = 365 * 86400;     // and at most this long ahead

// What a request asks besides its names (BOINC's optional fields): until when the files
// are held, and the batch (the account's, not retired) that uses them.
struct HoldRequest {
  int64_t delete_time = 0;
  int64_t batch_id = 0;
};

Result<HoldRequest> hold_request(const SubmitDocument& doc, Database& db, const UserRow& user, int64_t now) {
  auto delete_time = optional_integer(doc, "delete_time");
  if (!delete_time.ok()) return make_error(delete_time.error());
  auto batch_id = optional_integer(doc, "batch_id");
  if (!batch_id.ok()) return make_error(batch_id.error());
  HoldRequest hold{*delete_time > now ? std::min(*delete_time, now + kMaxHold) : now + kDefaultHold,
                   *batch_id};
  if (hold.batch_id != 0) {
    auto batch = fetch_batch(db, hold.batch_id);
    if (!batch || batch->user_id != user.id) return make_error("not owner of batch");
    if (batch->state == BatchState::Retired) return make_error("batch is retired");
  }
  return hold;
}

// The account holds `names` until hold.delete_time (and hold.batch uses them): one transaction.
void record_hold(Database& db, const UserRow& user, const std::vector<std::string>& names,
                 const HoldRequest& hold, int64_t now, bool create) {
  if (names.empty()) return;
  db.transaction([&](Database& d) {
    if (create) {
      hold_job_files(d, user.id, names, now, hold.delete_time);
    } else {
      extend_job_files(d, user.id, names, hold.delete_time);
    }
    if (hold.batch_id == 0) return;
    std::vector<int64_t> ids;
    for (const auto& [name, id] : held_job_files(d, user.id, names)) ids.push_back(id);
    associate_batch_files(d, hold.batch_id, ids);
  });
}

Result<std::vector<std::string>> phys_names(const SubmitDocument& doc) {
  auto names = repeated_names(doc, "phys_name", kMaxFiles);
  if (!names.ok()) return names;
  for (const auto& name : *names) {
    if (!is_plain_file_name(name)) return make_error("bad filename '" + name.substr(0, 80) + "'");
  }
  return names;
}

// Whether the file is in download/; one that is gets touched (the sandbox cleanup leaves
// recently touched files alone, so a file just reported present is not removed under the
// submitter who is about to use it).
bool in_download(const ProjectConfig& config, const std::string& name) {
  std::string path = fanout_path(config.download_dir, name, config.uldl_dir_fanout);
  struct stat info {};
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return false;
  utimes(path.c_str(), nullptr);
  return true;
}

Result<std::string> query_files(const SubmitDocument& doc, Database& db, const ProjectConfig& config,
                                int64_t now) {
  auto user = authenticate_with_grant(doc, db);
  if (!user.ok()) return make_error(user.error());
  auto names = phys_names(doc);
  if (!names.ok()) return make_error(names.error());
  auto hold = hold_request(doc, db, *user, now);
  if (!hold.ok()) return make_error(hold.error());
  // Present only in this account's sandbox: another account's upload of the same content
  // is reported absent, so nobody learns what others uploaded (uploading it proves the
  // content and adds this account's row).
  auto held = held_job_files(db, user->id, *names);
  std::vector<std::string> present;
  std::string out = "<absent_files>\n";
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    if (held.count(name) && in_download(config, name)) {
      present.push_back(name);
    } else {
      add_field(out, "file", static_cast<int64_t>(i));
    }
  }
  out += "</absent_files>\n";
  record_hold(db, *user, present, *hold, now, /*create=*/false);
  return out;
}

Result<std::string> upload_files(const SubmitDocument& doc, std::string_view body, Database& db,
                                 const ProjectConfig& config, int64_t now) {
  auto user = authenticate_with_grant(doc, db);
  if (!user.ok()) return make_error(user.error());
  auto names = phys_names(doc);
  if (!names.ok()) return make_error(names.error());
  auto hold = hold_request(doc, db, *user, now);
  if (!hold.ok()) return make_error(hold.error());
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
  // Files first, rows second: a row always has its file unless the file deleter removed
  // both, and the files written or touched just now are too fresh for its cleanup.
  record_hold(db, *user, *names, *hold, now, /*create=*/true);
  return std::string("<success/>\n");
}

}  // namespace

bool names_its_content(std::string_view name, std::string_view content) {
  return name.size() == 35 && name.substr(0, 3) == "jf_" && name.substr(3) == md5_hex(content);
}

std::string handle_job_file_rpc(std::string_view body, Database& db, const ProjectConfig& config,
                                const SubmitLimits& limits, int64_t now) {
  auto text = extract_request_document(body);
  if (!text.ok()) return render_submit_error("", "can't parse request message: " + text.error());
  SubmitLimits small = limits;
  small.max_jobs = kMaxFiles / 32 + 1;  // node budget: about 32 per name
  auto doc = load_submit_document(std::move(*text), small);
  if (!doc.ok()) return render_submit_error("", "can't parse request message: " + doc.error());
  const std::string& op = (*doc)->operation;
  Result<std::string> reply = make_error("no such action");
  if (op == "query_files") {
    reply = query_files(**doc, db, config, now);
  } else if (op == "upload_files") {
    reply = upload_files(**doc, body, db, config, now);
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
