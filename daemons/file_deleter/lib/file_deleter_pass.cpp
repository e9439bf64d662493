// Implementation of daemons/file_deleter/lib/file_deleter_pass.h.
#include "daemons/file_deleter/lib/file_deleter_pass.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemons/file_deleter/file_deleter_rules.h"
#include "db/file_store.h"
#include "db/result_store.h"
#include "db/workunit_store.h"
#include "lib/fanout.h"
#include "lib/file_refs.h"
#include "lib/log.h"

namespace tharsis {
namespace {

constexpr int64_t kRetryDelaySeconds = 60;

std::vector<FileAttempt> unlink_all(const std::string& base, int fanout, const std::vector<std::string>& names) {
  std::vector<FileAttempt> attempts;
  for (const auto& name : names) {
    FileAttempt attempt{name, DeleteAttempt::Deleted, ""};
    if (unlink(fanout_path(base, name, fanout).c_str()) != 0) {
      attempt.outcome = errno == ENOENT ? DeleteAttempt::NotFound : DeleteAttempt::Failed;
      attempt.error = std::strerror(errno);
    }
    attempts.push_back(attempt);
  }
  return attempts;
}

std::vector<std::string> names_of(const std::vector<StoredFile>& files) {
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.name);
  return names;
}

}  // namespace

bool FileDeleterPass::delete_workunit_files(Database& db, int64_t wu_id) {
  auto wu = fetch_workunit(db, wu_id);
  if (!wu || wu->file_delete_state != FileDeleteState::Ready) return false;
  auto inputs = file_infos_in(wu->xml_doc);
  std::vector<StoredFile> files = inputs.ok() ? *inputs : std::vector<StoredFile>{};
  if (!inputs.ok()) log_error("workunit ", wu_id, ": ", inputs.error(), "; no input files deleted");
  FileSelection selection = select_input_files(*wu, files, live_file_references(db, names_of(files), wu_id));
  if (!selection.eligible) return false;
  FileDeletionDecision decision = decide_after_deletion(
      "workunit " + std::to_string(wu_id),
      unlink_all(config_.download_dir, config_.uldl_dir_fanout, selection.delete_now));
  for (const auto& message : decision.messages) log_error(message);
  if (decision.retry) return false;
  return db.exec("UPDATE workunit SET file_delete_state = ? WHERE id = ? AND file_delete_state = ?",
                 decision.new_state, wu_id, FileDeleteState::Ready) > 0;
}

bool FileDeleterPass::delete_result_files(Database& db, int64_t result_id) {
  auto result = fetch_result(db, result_id);
  if (!result || result->file_delete_state != FileDeleteState::Ready) return false;
  auto outputs = file_infos_in(result->xml_doc_in);
  std::vector<StoredFile> files = outputs.ok() ? *outputs : std::vector<StoredFile>{};
  if (!outputs.ok()) log_error("result ", result_id, ": ", outputs.error(), "; no output files deleted");
  FileSelection selection =
      select_output_files(*result, files, live_file_references(db, names_of(files), result->workunitid));
  if (!selection.eligible) return false;
  FileDeletionDecision decision = decide_after_deletion(
      "result " + std::to_string(result_id),
      unlink_all(config_.upload_dir, config_.uldl_dir_fanout, selection.delete_now));
  for (const auto& message : decision.messages) log_error(message);
  if (decision.retry) return false;
  return db.exec("UPDATE result SET file_delete_state = ? WHERE id = ? AND file_delete_state = ?",
                 decision.new_state, result_id, FileDeleteState::Ready) > 0;
}

int FileDeleterPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  int done = 0;
  auto attempt = [&](const std::string& key, const std::function<bool()>& work) {
    auto it = retry_after_.find(key);
    if (it != retry_after_.end() && it->second > now) return;
    if (work()) {
      ++done;
      retry_after_.erase(key);
    } else {
      retry_after_[key] = now + kRetryDelaySeconds;
    }
  };
  for (const auto& wu : fetch_file_delete_ready_workunits(db, context.shard, context.batch)) {
    attempt("wu" + std::to_string(wu.id), [&] { return delete_workunit_files(db, wu.id); });
  }
  for (const auto& result : fetch_file_delete_ready_results(db, context.shard, context.batch)) {
    attempt("r" + std::to_string(result.id), [&] { return delete_result_files(db, result.id); });
  }
  return done;
}

}  // namespace tharsis
