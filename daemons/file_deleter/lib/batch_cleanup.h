// The file deleter's work on remote-submission batches and sandboxes
// (docs/remote_submission.md), done by shard 0 only (one instance whatever --mod says),
// each step one statement per list of up to `limit` rows:
//  1. expiry: batches not retired whose expire_time (> 0) has passed are retired as
//     retire_batch does it (their unfinished jobs cancelled), in one transaction;
//  2. retired batches whose jobs are all assimilated: their jobs' directories in the
//     results store (results/<job>/) are removed, then the batches get files_deleted = 1
//     and their sandbox associations are forgotten — removal first, so a crash in between
//     only repeats it;
//  3. sandbox rows past their delete_time that no live batch uses are deleted, and with
//     them each file no other account holds, no workunit still to run names and nothing
//     touched within the grace (batch_cleanup_rules.h) — in one transaction, the unlinks
//     before its commit, so a crash leaves the rows and the next pass finds the files gone.
// The input files of the batches' workunits and their results' outputs in upload/ are the
// file deleter's ordinary work (a sandbox file is kept there while a row holds it).
#pragma once

#include <cstdint>

#include "db/database.h"
#include "lib/config/project_config.h"

namespace tharsis {

struct BatchCleanupCounts {
  int64_t expired = 0;        // batches retired at their expire_time
  int64_t cleaned = 0;        // retired batches whose results were removed
  int64_t sandbox_rows = 0;   // job_file rows deleted
  int64_t sandbox_files = 0;  // files removed from download/
  int64_t total() const { return expired + cleaned + sandbox_rows; }
};

BatchCleanupCounts clean_batches_and_sandboxes(Database& db, const ProjectConfig& config, int64_t now,
                                               int limit);

}  // namespace tharsis
