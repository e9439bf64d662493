// The file deleter's rules for remote-submission batches and sandboxes as pure functions
// (the shell is daemons/file_deleter/lib/batch_cleanup.h): which directories of the
// results store a retired batch's jobs own, and when a sandbox file nobody holds any more
// may be removed.
#pragma once

#include <cstdint>
#include <string>

namespace tharsis {

// A file in download/ that staging or job_file.php touched this recently is kept: a
// submission reusing it may not have committed yet. Longer than any submission runs.
inline constexpr int64_t kSandboxTouchGrace = 3600;

// Whether a sandbox file whose rows are gone may be removed at `now`: no workunit still to
// run names it and no other account holds it (`still_used`), and it was last modified or
// touched (`mtime`) at least kSandboxTouchGrace ago.
bool may_remove_sandbox_file(bool still_used, int64_t mtime, int64_t now);

// The results-store directory of job `job_name` under `store_dir`, or "" when the name
// could leave the store (empty, ".", "..", or with a '/'): such a directory is never removed.
std::string job_results_dir(const std::string& store_dir, const std::string& job_name);

}  // namespace tharsis
