// SQL for file bookkeeping: which workunits name which input files (workunit_input), so
// a file shared by several workunits is deleted only when no live workunit needs it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/rows.h"

namespace tharsis {

// Records that workunit `wu_id` names these input files, taking them first
// (take_download_files): the caller checks or stages the files only after this, in the
// same transaction, so a file deleter that read no user for one of them has either
// unlinked it already (it is staged again) or sees this workunit.
void record_workunit_inputs(Database& db, int64_t wu_id, const std::vector<std::string>& file_names);

// Takes the files `names` in download/ for a workunit of the caller's transaction: writes
// each name's download_claim row and removes it again, so the row stays locked until the
// caller commits — a file deleter deciding about one of them waits for that commit and
// then sees the caller's workunit_input rows (and, on Galera, the two writes conflict at
// certification). Waits for a file deleter still deciding. Throws StaleRow (the caller's
// transaction rolls back) naming a file a file deleter has decided to unlink: it is gone
// or about to go, so the caller stages it again at its next attempt.
void take_download_files(Database& db, const std::vector<std::string>& names);

// The file deleter's side, each in the caller's transaction. Marks each name of `owners`
// deleting for the READY workunit given with it (download_claim rows; waits for every
// transaction taking one of them): from the commit on, no workunit takes them. Returns
// each name's owner as marked: another workunit's where another file deleter's mark was
// there first (that deleter unlinks the file). The caller reads the files' users again
// after this and unlinks only what nobody uses, after its commit.
std::map<std::string, int64_t> mark_downloads_deleting(Database& db,
                                                       const std::map<std::string, int64_t>& owners);
// Drops the deleting marks of `names`: kept after all, or their unlink is over (gone,
// or failed and left for a retry, the file still there for its users).
void forget_downloads_deleting(Database& db, const std::vector<std::string>& names);
// Names among `names` marked deleting (for tests).
std::vector<std::string> downloads_deleting(Database& db, const std::vector<std::string>& names);

// Of `file_names`, each one named by a workunit whose file_delete_state is still INIT (it
// may still be sent or run), with the ids of the newest two of those workunits, or held in
// a submitter's sandbox (a job_file row, db/job_file_store.h; id 0 stands for the sandbox):
// one statement for a whole batch of rows' files. Two are enough for the caller, which
// asks whether a workunit other than the row's own needs the file; reading no more keeps
// the cost of a file shared by every workunit flat.
std::map<std::string, std::set<int64_t>> live_file_users(Database& db,
                                                         const std::vector<std::string>& file_names);

// The results of these workunits that are OVER with file_delete_state still INIT — those
// the law never marks for deletion (NO_REPLY, DIDNT_NEED, ...) — with only id, workunitid,
// server_state, outcome, file_delete_state and xml_doc_in filled in: one statement for a batch.
std::vector<ResultRow> fetch_unmarked_over_results(Database& db, const std::vector<int64_t>& wu_ids);

enum class FileOwner { Workunit = 0, Result = 1 };  // also file_delete_retry.owner

// Records DONE for these workunits or results that are still READY, in one statement;
// returns how many it changed (a row another deleter finished meanwhile is left alone).
// Their file_delete_retry rows go too.
int64_t mark_files_deleted(Database& db, FileOwner owner, const std::vector<int64_t>& ids);

// file_delete_retry: rows whose files could not all be unlinked wait there until
// next_time (fetch_file_delete_ready_* skip them), so they never starve the others.
struct FileDeleteFailure {
  int64_t id = 0;
  std::string error;  // cut to 254 bytes
};
// How many times each of these rows has failed so far (absent: never).
std::map<int64_t, int> file_delete_failures(Database& db, FileOwner owner, const std::vector<int64_t>& ids);
// Records another failure of row `failure.id`: failures = `failures`, not tried before `next_time`.
void record_file_delete_failure(Database& db, FileOwner owner, const FileDeleteFailure& failure, int failures,
                                int64_t next_time);
// Rows waiting in file_delete_retry (status pages, tools/status).
int64_t count_file_delete_retries(Database& db);

// Whether a workunit other than `except_wu` whose files are not yet deleted names `file_name`
// as an input (tools/check: a shared input must outlive its last live user).
bool input_used_by_other_live_workunit(Database& db, const std::string& file_name, int64_t except_wu);

}  // namespace tharsis
