// Implementation of daemons/file_deleter/lib/batch_cleanup.h.
#include "daemons/file_deleter/lib/batch_cleanup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "daemons/file_deleter/batch_cleanup_rules.h"
#include "db/batch_job_queries.h"
#include "db/batch_store.h"
#include "db/file_store.h"
#include "db/job_file_store.h"
#include "lib/log.h"
#include "lib/work/fanout.h"

namespace tharsis {
namespace {

// Retired batches cleaned per statement: each may have 100,000 jobs whose names are read.
constexpr int kBatchesPerRound = 8;

int64_t retire_expired(Database& db, int64_t now, int limit) {
  auto ids = fetch_expired_batches(db, static_cast<double>(now), limit);
  if (ids.empty()) return 0;
  return db.transaction([&](Database& d) {
    cancel_jobs_of_batches(d, ids, now);
    return mark_batches_retired(d, ids);
  });
}

int64_t clean_retired(Database& db, const ProjectConfig& config) {
  auto ids = fetch_retired_batches_to_clean(db, kBatchesPerRound);
  if (ids.empty()) return 0;
  const std::string store = config.project_dir + "/results";
  for (const auto& name : fetch_job_names_of_batches(db, ids)) {
    std::string dir = job_results_dir(store, name);
    if (dir.empty()) continue;
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (ec) {  // try again next pass; the batch stays as it is
      log_error("cannot remove ", dir, ": ", ec.message());
      return 0;
    }
  }
  db.transaction([&](Database& d) {
    mark_batch_files_deleted(d, ids);
    forget_batch_files(d, ids);
  });
  return static_cast<int64_t>(ids.size());
}

// The file's modification time, or -1 when it is not there.
int64_t mtime_of(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 ? static_cast<int64_t>(info.st_mtime) : -1;
}

void clean_sandboxes(Database& db, const ProjectConfig& config, int64_t now, int limit,
                     BatchCleanupCounts& counts) {
  // A row whose file was touched within the grace waits for a later pass (its file is
  // about to be used); deleting the row now could leave the file with no row ever again.
  std::vector<int64_t> ids;
  std::set<std::string> distinct;
  for (const auto& row : fetch_expired_job_files(db, now, limit)) {
    std::string path = fanout_path(config.download_dir, row.name, config.uldl_dir_fanout);
    if (int64_t mtime = mtime_of(path); mtime >= 0 && !may_remove_sandbox_file(false, mtime, now)) continue;
    ids.push_back(row.id);
    distinct.insert(row.name);
  }
  if (ids.empty()) return;
  std::vector<std::string> names(distinct.begin(), distinct.end());
  db.transaction([&](Database& d) {
    counts.sandbox_rows = delete_expired_job_files(d, ids, now);
    counts.sandbox_files = 0;
    // After the deletion: a name still held (by another account, or a row extended
    // meanwhile) or named by a workunit still to run has a user.
    auto users = live_file_users(d, names);
    for (const auto& name : names) {
      std::string path = fanout_path(config.download_dir, name, config.uldl_dir_fanout);
      int64_t mtime = mtime_of(path);
      if (mtime < 0 || !may_remove_sandbox_file(users.count(name) != 0, mtime, now)) continue;
      if (unlink(path.c_str()) == 0) {
        ++counts.sandbox_files;
      } else if (errno != ENOENT) {
        log_error("cannot remove sandbox file ", path, ": ", std::strerror(errno));
      }
    }
  });
}

}  // namespace

BatchCleanupCounts clean_batches_and_sandboxes(Database& db, const ProjectConfig& config, int64_t now,
                                               int limit) {
  BatchCleanupCounts counts;
  counts.expired = retire_expired(db, now, limit);
  counts.cleaned = clean_retired(db, config);
  clean_sandboxes(db, config, now, limit, counts);
  if (counts.total() > 0) {
    log_info("batches: ", counts.expired, " expired, ", counts.cleaned,
             " retired cleaned; sandbox: ", counts.sandbox_rows, " rows, ", counts.sandbox_files,
             " files removed");
  }
  return counts;
}

}  // namespace tharsis
