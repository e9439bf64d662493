// Implementation of daemons/file_deleter/lib/file_deleter_pass.h.
#include "daemons/file_deleter/lib/file_deleter_pass.h"

#include <unistd.h>

#include <algorithm>
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

// What differs between a workunit's inputs and a result's outputs.
std::string key_of(const WorkunitRow& wu) { return "wu" + std::to_string(wu.id); }
std::string key_of(const ResultRow& r) { return "r" + std::to_string(r.id); }
std::string label_of(const WorkunitRow& wu) { return "workunit " + std::to_string(wu.id); }
std::string label_of(const ResultRow& r) { return "result " + std::to_string(r.id); }
const std::string& doc_of(const WorkunitRow& wu) { return wu.xml_doc; }
const std::string& doc_of(const ResultRow& r) { return r.xml_doc_in; }
int64_t workunit_of(const WorkunitRow& wu) { return wu.id; }
int64_t workunit_of(const ResultRow& r) { return r.workunitid; }
FileOwner owner_of(const WorkunitRow&) { return FileOwner::Workunit; }
FileOwner owner_of(const ResultRow&) { return FileOwner::Result; }
FileSelection select_for(const WorkunitRow& wu, const std::vector<StoredFile>& files,
                         const std::set<std::string>& live) {
  return select_input_files(wu, files, live);
}
FileSelection select_for(const ResultRow& r, const std::vector<StoredFile>& files, const std::set<std::string>& live) {
  return select_output_files(r, files, live);
}
const std::string& dir_for(const WorkunitRow&, const ProjectConfig& config) { return config.download_dir; }
const std::string& dir_for(const ResultRow&, const ProjectConfig& config) { return config.upload_dir; }

}  // namespace

template <class Row>
int FileDeleterPass::delete_chunk(Database& db, const std::vector<Row>& rows, int64_t now) {
  std::vector<std::vector<StoredFile>> files(rows.size());
  std::vector<std::string> all_names;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto parsed = file_infos_in(doc_of(rows[i]));
    if (parsed.ok()) {
      files[i] = *parsed;
    } else {
      log_error(label_of(rows[i]), ": ", parsed.error(), "; no files deleted");
    }
    for (const auto& f : files[i]) all_names.push_back(f.name);
  }
  // Read before any unlink: a file a live workunit names is never deleted.
  auto users = live_file_users(db, all_names);
  std::vector<int64_t> done;
  std::vector<std::string> retry;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    std::set<std::string> live;
    for (const auto& f : files[i]) {
      auto it = users.find(f.name);
      if (it == users.end()) continue;
      const auto& ids = it->second;
      if (ids.size() > 1 || ids.count(workunit_of(row)) == 0) live.insert(f.name);
    }
    FileSelection selection = select_for(row, files[i], live);
    if (!selection.eligible) {
      retry.push_back(key_of(row));
      continue;
    }
    FileDeletionDecision decision = decide_after_deletion(
        label_of(row), unlink_all(dir_for(row, config_), config_.uldl_dir_fanout, selection.delete_now));
    for (const auto& message : decision.messages) log_error(message);
    if (decision.retry) {
      retry.push_back(key_of(row));
    } else {
      done.push_back(row.id);
    }
  }
  int recorded = static_cast<int>(mark_files_deleted(db, owner_of(rows.front()), done));
  for (const Row& row : rows) retry_after_.erase(key_of(row));
  for (const auto& key : retry) retry_after_[key] = now + kRetryDelaySeconds;
  return recorded;
}

int FileDeleterPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  const size_t per_commit = static_cast<size_t>(std::max(1, context.options.units_per_commit));
  auto due = [&](const std::string& key) {
    auto it = retry_after_.find(key);
    return it == retry_after_.end() || it->second <= now;
  };
  auto in_chunks = [&](const auto& ready) {
    using Row = typename std::decay_t<decltype(ready)>::value_type;
    int recorded = 0;
    std::vector<Row> chunk;
    for (const Row& row : ready) {
      if (!due(key_of(row))) continue;
      chunk.push_back(row);
      if (chunk.size() == per_commit) {
        recorded += delete_chunk(db, chunk, now);
        chunk.clear();
      }
    }
    if (!chunk.empty()) recorded += delete_chunk(db, chunk, now);
    return recorded;
  };
  int done = in_chunks(fetch_file_delete_ready_workunits(db, context.shard, context.batch));
  done += in_chunks(fetch_file_delete_ready_results(db, context.shard, context.batch));
  return done;
}

}  // namespace tharsis
