// db_purge: archives finished workunits and their results, then deletes the rows, so the
// tables stay small over months. A workunit qualifies once it has been assimilated for
// longer than `min_age_seconds` and all its files are handled (db/purge_store.h).
// Archives: <archive_dir>/<YYYY-MM-DD of assimilation>/wu_<first id>_<last id>.xml.gz, one
// gzip file per batch, written atomically (temp + fsync + rename) BEFORE the rows are
// deleted in one transaction. Killed in between, the next run selects the same batch and
// rewrites the same file: nothing lost, nothing archived twice.
#pragma once

#include <cstdint>
#include <string>

#include "db/database.h"
#include "lib/result.h"

namespace tharsis {

struct PurgeOptions {
  std::string archive_dir;
  int64_t min_age_seconds = 7 * 86400;
  int batch = 1000;
};

struct PurgeSummary {
  int64_t workunits = 0;
  int64_t results = 0;
  int files = 0;
};

// Purges until nothing qualifies. Archive write failures are errors (rows kept).
Result<PurgeSummary> purge_finished(Database& db, const PurgeOptions& options, int64_t now);

// Reads an archive back: the concatenated XML text (for tests and admins).
Result<std::string> read_archive(const std::string& path);

}  // namespace tharsis
