// Implementation of daemons/file_deleter/batch_cleanup_rules.h.
#include "daemons/file_deleter/batch_cleanup_rules.h"

namespace tharsis {

bool may_remove_sandbox_file(bool still_used, int64_t mtime, int64_t now) {
  return !still_used && mtime + kSandboxTouchGrace <= now;
}

std::string job_results_dir(const std::string& store_dir, const std::string& job_name) {
  if (job_name.empty() || job_name == "." || job_name == ".." || job_name.find('/') != std::string::npos)
    return "";
  return store_dir + "/" + job_name;
}

}  // namespace tharsis
