// The file deleter's rules: select deletable files, decide the state after trying.
// See file_deleter_rules.h for the contract.
#include "daemons/file_deleter/file_deleter_rules.h"

#include <algorithm>

namespace tharsis {
namespace {

FileSelection select_files(bool eligible, const std::vector<StoredFile>& files,
                           const std::set<std::string>& live_references, bool with_partials) {
  FileSelection selection;
  if (!eligible) return selection;
  selection.eligible = true;
  std::set<std::string> seen;  // a file named twice is deleted once
  for (const StoredFile& f : files) {
    if (!seen.insert(f.name).second) continue;
    const bool shared = live_references.count(f.name) != 0;
    if (f.no_delete) {
      selection.kept_no_delete.push_back(f.name);
    } else if (shared) {
      selection.kept_shared.push_back(f.name);
    } else {
      selection.delete_now.push_back(f.name);
    }
    if (with_partials && !shared) selection.partial_uploads.push_back(f.name);
  }
  return selection;
}

}  // namespace

std::string partial_upload_name(const std::string& name) { return name + ".partial"; }

FileSelection select_input_files(const WorkunitRow& wu, const std::vector<StoredFile>& inputs,
                                 const std::set<std::string>& live_references) {
  return select_files(wu.file_delete_state == FileDeleteState::Ready, inputs, live_references, false);
}

FileSelection select_output_files(const ResultRow& result, const std::vector<StoredFile>& outputs,
                                  const std::set<std::string>& live_references) {
  return select_files(result.file_delete_state == FileDeleteState::Ready, outputs, live_references, true);
}

std::set<std::string> live_references(int64_t wu_id, const std::vector<StoredFile>& named,
                                      const FileUsers& users) {
  std::set<std::string> live;
  for (const StoredFile& f : named) {
    auto it = users.find(f.name);
    if (it == users.end()) continue;
    const std::set<int64_t>& ids = it->second;
    if (ids.size() > 1 || ids.count(wu_id) == 0) live.insert(f.name);
  }
  return live;
}

FileSelection select_abandoned_outputs(const WorkunitRow& wu, const ResultRow& result,
                                       const std::vector<StoredFile>& outputs,
                                       const std::set<std::string>& live_references) {
  // DIDNT_NEED and COULDNT_SEND results were never sent: nothing of theirs to look for.
  const bool ever_sent = result.outcome != Outcome::DidntNeed && result.outcome != Outcome::CouldntSend;
  const bool eligible = wu.file_delete_state == FileDeleteState::Ready && result.workunitid == wu.id &&
                        result.server_state == ServerState::Over &&
                        result.file_delete_state == FileDeleteState::Init && ever_sent;
  return select_files(eligible, outputs, live_references, true);
}

int64_t file_delete_retry_delay(int failures) {
  constexpr int64_t kFirst = 60, kMost = 6 * 3600;
  int64_t delay = kFirst;
  for (int i = 1; i < failures && delay < kMost; ++i) delay *= 2;
  return std::min(delay, kMost);
}

FileDeleteRetry next_file_delete_retry(int failures_before, int64_t now) {
  const int failures = std::max(0, failures_before) + 1;
  return FileDeleteRetry{failures, now + file_delete_retry_delay(failures)};
}

FileDeletionDecision decide_after_deletion(const std::string& row_label,
                                           const std::vector<FileAttempt>& attempts) {
  FileDeletionDecision decision;
  for (const FileAttempt& a : attempts) {
    switch (a.outcome) {
      case DeleteAttempt::Deleted:
        ++decision.deleted;
        break;
      case DeleteAttempt::NotFound:
        ++decision.not_found;
        break;
      case DeleteAttempt::Failed:
        ++decision.failed;
        decision.messages.push_back(row_label + ": could not delete " + a.name + ": " +
                                    (a.error.empty() ? "unknown error" : a.error) +
                                    "; file_delete_state stays READY for a retry");
        break;
    }
  }
  if (decision.failed > 0) {
    decision.new_state = FileDeleteState::Ready;
    decision.retry = true;
  }
  return decision;
}

}  // namespace tharsis
