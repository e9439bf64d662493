// db_purge: archives finished workunits and their results, then deletes the rows, so the
// tables stay small over months. A workunit qualifies once it has been assimilated for at
// least `min_age_seconds` (0: whatever is assimilated, this second's too) and all its files
// are handled (db/purge_store.h).
// Archives: <archive_dir>/<YYYY-MM-DD of assimilation>/wu_<first id>_<last id>.xml.gz, one
// gzip file per batch, written atomically (temp + fsync + rename) BEFORE the rows are
// deleted in one transaction. Killed in between, the next run selects the same batch and
// rewrites the same file: nothing lost, nothing archived twice.
// Each archive is a sequence of <workunit> elements, each with its <result>s: the columns
// of ArchivedWorkunit and ArchivedResult below (numbers in full precision, text escaped);
// read_archive_records reads one back (db_purge --read FILE prints it).
// Then retired batches (remote submission) whose files the file deleter removed and whose
// workunits are all purged go the same way: <archive_dir>/<YYYY-MM-DD of the purge>/
// batch_<first id>_<last id>.xml.gz, a sequence of <batch> elements (ArchivedBatch),
// written before the rows are deleted; read_batch_records reads one back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
  int64_t batches = 0;
  int files = 0;
};

// Purges until nothing qualifies. Archive write failures are errors (rows kept).
Result<PurgeSummary> purge_finished(Database& db, const PurgeOptions& options, int64_t now);

// Reads an archive back: the concatenated XML text (for tests and admins).
Result<std::string> read_archive(const std::string& path);

// The rows an archive holds, as archived.
struct ArchivedResult {
  int64_t id = 0;
  std::string name;
  int64_t hostid = 0;
  int server_state = 0, outcome = 0, validate_state = 0, exit_status = 0;
  double cpu_time = 0, granted_credit = 0;
  int64_t sent_time = 0, received_time = 0;
};
struct ArchivedWorkunit {
  int64_t id = 0;
  std::string name;
  int64_t appid = 0, create_time = 0, canonical_resultid = 0;
  int error_mask = 0;
  double canonical_credit = 0;
  int64_t assimilated_time = 0;
  std::string xml_doc;
  std::vector<ArchivedResult> results;
};

// Parses an archive's text (read_archive); an error names what is malformed.
Result<std::vector<ArchivedWorkunit>> parse_archive(const std::string& text);
// read_archive + parse_archive.
Result<std::vector<ArchivedWorkunit>> read_archive_records(const std::string& path);

// One line per workunit and per result, tab-separated, for admins (db_purge --read).
std::string render_archive_records(const std::vector<ArchivedWorkunit>& workunits);

// An archived batch: its row's columns as they were.
struct ArchivedBatch {
  int64_t id = 0, user_id = 0, app_id = 0, create_time = 0, completion_time = 0;
  std::string name;
  int njobs = 0, njobs_done = 0, nerror_jobs = 0, state = 0;
  double expire_time = 0, credit_canonical = 0;
};
// The <batch> elements of an archive's text; an error names what is malformed.
Result<std::vector<ArchivedBatch>> parse_batch_archive(const std::string& text);
// read_archive + parse_batch_archive.
Result<std::vector<ArchivedBatch>> read_batch_records(const std::string& path);
// One tab-separated line per batch (db_purge --read).
std::string render_batch_records(const std::vector<ArchivedBatch>& batches);

}  // namespace tharsis
