// Implementation of sched/lib/submit/output_download.h.
#include "sched/lib/submit/output_download.h"

#include "daemons/assimilator/lib/results_store.h"
#include "db/batch_job_queries.h"
#include "db/batch_store.h"
#include "db/result_store.h"
#include "db/user_store.h"
#include "db/workunit_store.h"
#include "lib/crypto/md5.h"
#include "lib/text_file.h"
#include "lib/web/cgi_request.h"
#include "lib/work/output_files.h"
#include "sched/lib/submit/graph_output_download.h"
#include "sched/lib/submit/zip_writer.h"

namespace tharsis {
namespace {

HttpResponse failure(int status, const std::string& why) {
  return HttpResponse{status, "text/plain", "ERROR: " + why + "\n"};
}

HttpResponse file_reply(std::string content) {
  return HttpResponse{200, "application/octet-stream", std::move(content)};
}

// The owner of the batch, if auth_str is md5(owner's authenticator + `signed_text`).
bool authorised(Database& db, int64_t batch_id, const std::string& signed_text, const std::string& auth_str) {
  auto batch = batch_id != 0 ? fetch_batch(db, batch_id) : std::nullopt;
  if (!batch) return false;
  auto user = fetch_user(db, batch->user_id);
  return user && md5_hex(user->authenticator + signed_text) == auth_str;
}

// The canonical outputs of `wu` from the results store, in output order.
Result<std::vector<std::string>> stored_output_paths(const ProjectConfig& config, const WorkunitRow& wu) {
  std::string store = config.project_dir + "/results";
  auto manifest = read_manifest(store, wu.name);
  if (!manifest.ok()) return make_error(manifest.error());
  std::vector<std::string> paths;
  for (const auto& file : *manifest) paths.push_back(workunit_store_dir(store, wu.name) + "/" + file.name);
  return paths;
}

HttpResponse result_file(const QueryParams& q, Database& db, const ProjectConfig& config) {
  auto name = q.get_string("result_name");
  auto file_num = q.get_int_or("file_num", 0, 0, 1000);
  auto auth = q.get_string("auth_str");
  if (!name.ok() || !file_num.ok() || !auth.ok()) {
    return failure(400, !name.ok() ? name.error() : !file_num.ok() ? file_num.error() : auth.error());
  }
  auto result = fetch_result_by_name(db, *name);
  auto wu = result ? fetch_workunit(db, result->workunitid) : std::nullopt;
  // The same answer for "no such result" and "not yours": names are not secrets, but
  // whether one exists in another's batch is none of the asker's business.
  if (!wu || !authorised(db, wu->batch, result->name, *auth))
    return failure(403, "bad authenticator or no such result");
  auto paths = wu->canonical_resultid == result->id && wu->assimilate_state == AssimilateState::Done
                   ? stored_output_paths(config, *wu)
                   : output_file_paths(config, *result);
  if (!paths.ok()) return failure(404, "no output files: " + paths.error());
  if (static_cast<size_t>(*file_num) >= paths->size()) {
    return failure(404,
                   "bad file num: " + std::to_string(*file_num) + " >= " + std::to_string(paths->size()));
  }
  auto content = read_text_file((*paths)[static_cast<size_t>(*file_num)]);
  if (!content.ok()) return failure(404, "output file is gone");
  return file_reply(std::move(*content));
}

HttpResponse batch_files(const QueryParams& q, Database& db, const ProjectConfig& config) {
  auto batch_id = q.get_int("batch_id", 1, INT32_MAX);
  auto auth = q.get_string("auth_str");
  if (!batch_id.ok() || !auth.ok()) return failure(400, !batch_id.ok() ? batch_id.error() : auth.error());
  if (!authorised(db, *batch_id, std::to_string(*batch_id), *auth))
    return failure(403, "bad authenticator or no such batch");
  ZipWriter zip;
  std::string store = config.project_dir + "/results";
  for (const BatchJob& job : fetch_batch_jobs(db, *batch_id)) {
    if (job.canonical_resultid == 0) continue;
    auto manifest = read_manifest(store, job.name);
    if (!manifest.ok()) continue;  // not assimilated yet
    for (const auto& file : *manifest) {
      if (zip.bytes() + static_cast<size_t>(file.size) > kMaxBatchArchiveBytes || zip.entries() >= 65535) {
        return failure(400, "the batch's outputs exceed the archive limit; fetch them with cmd=result_file");
      }
      auto content = read_text_file(workunit_store_dir(store, job.name) + "/" + file.name);
      if (content.ok()) zip.add(job.name + "/" + file.name, *content);
    }
  }
  return HttpResponse{200, "application/zip", zip.finish()};
}

}  // namespace

HttpResponse handle_get_output(std::string_view query_string, Database& db, const ProjectConfig& config) {
  auto q = QueryParams::parse(query_string);
  if (!q.ok()) return failure(400, q.error());
  std::string cmd = q->get_string_or("cmd", "");
  if (cmd == "result_file") return result_file(*q, db, config);
  if (cmd == "batch_files") return batch_files(*q, db, config);
  if (cmd == "graph_output") return graph_output_response(*q, db, config);
  return failure(400, "expected cmd=result_file, cmd=batch_files or cmd=graph_output");
}

}  // namespace tharsis
