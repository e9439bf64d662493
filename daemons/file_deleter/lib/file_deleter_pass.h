// The file deleter's shell: for each workunit (inputs, in download/) and result (outputs,
// in upload/) of its shard with file_delete_state READY, select the files the rules allow
// (file_deleter_rules.h: never a file a live workunit still names), unlink them, then
// record DONE — or, when an unlink failed, keep READY and log, so it is retried on a
// later pass and never forgotten. Unlinking before the commit makes a crash harmless: the
// re-run finds the files already gone.
#pragma once

#include <map>

#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class FileDeleterPass final : public DaemonWork {
 public:
  explicit FileDeleterPass(const ProjectConfig& config) : config_(config) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
  bool delete_workunit_files(Database& db, int64_t wu_id);
  bool delete_result_files(Database& db, int64_t result_id);

 private:
  const ProjectConfig& config_;
  // Rows whose deletion failed: retried no sooner than kRetryDelaySeconds later.
  std::map<std::string, int64_t> retry_after_;
};

}  // namespace tharsis
