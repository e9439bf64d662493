// The file deleter's rules of the back-end law as pure functions: which input files of a
// workunit and which output files of a result may be unlinked now, and what to record
// after trying. The daemon's shell lists the files (from xml_doc / xml_doc_in), unlinks
// the selected ones, and writes the decision.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "db/rows.h"
#include "lib/work/file_refs.h"

namespace tharsis {

struct FileSelection {
  // False when the row is not in file_delete_state READY: select nothing, record nothing.
  bool eligible = false;
  std::vector<std::string> delete_now;
  std::vector<std::string> kept_no_delete;  // marked <no_delete/>
  std::vector<std::string> kept_shared;     // still referenced by a live workunit
  // Output names whose unfinished upload goes too: "<name>.partial" beside the file in
  // upload/ (sched/lib/upload_handler.cpp). An upload never finished is of no use to
  // anyone, so a no_delete output's partial goes as well; a shared name's is kept.
  std::vector<std::string> partial_uploads;
};

// The name of the unfinished upload of output `name` (same fan-out directory as `name`).
std::string partial_upload_name(const std::string& name);

// Input files of `wu` to delete. Only a workunit in file_delete_state READY qualifies (the
// transitioner sets READY once all its results are OVER and it is assimilated). A file is
// kept if marked no_delete, or if its name is in `live_references`: the names of files
// referenced by any *other* workunit whose file_delete_state is still INIT (it may still be
// sent, or be a graph successor's input). Workunits already READY or DONE do not count, so
// the last workunit to reach READY deletes a shared file.
FileSelection select_input_files(const WorkunitRow& wu, const std::vector<StoredFile>& inputs,
                                 const std::set<std::string>& live_references);

// Output files of `result` to delete; same rules (READY, no_delete, live references — a
// canonical output may be a graph successor's input), plus the partial uploads.
FileSelection select_output_files(const ResultRow& result, const std::vector<StoredFile>& outputs,
                                  const std::set<std::string>& live_references);

// Who still needs each file: for a file name, ids of workunits whose file_delete_state is
// INIT that name it — all of them, or any two (0 stands for a submitter's sandbox, which
// keeps a file as long as it holds it) — what db/file_store.h live_file_users reads.
using FileUsers = std::map<std::string, std::set<int64_t>>;

// The live references among `named` for a row of workunit `wu_id`: the names some
// workunit other than `wu_id` (or a sandbox) still needs. The row's own workunit does not
// count: it is READY, or (for a result's outputs) its results are over, so it is the last
// user and deletes the file.
std::set<std::string> live_references(int64_t wu_id, const std::vector<StoredFile>& named,
                                      const FileUsers& users);

// Outputs of a result the law never marks for deletion: OVER with file_delete_state INIT
// and sent to a host (NO_REPLY, CLIENT_DETACHED — no validated output, no client error;
// DIDNT_NEED and COULDNT_SEND results were never sent). Its host may still have uploaded
// them, whole or in part, before it timed out or detached (issue 13: such `.partial` files were left in
// upload/ for good). They go with the inputs of their workunit `wu`: only when wu is READY (every result
// OVER, the workunit assimilated, so no report or upload of the result is taken any more). The result row is
// not changed (its file_delete_state stays INIT, as BOINC's law says); a failed unlink keeps the workunit
// READY. Same no_delete and live-reference rules.
FileSelection select_abandoned_outputs(const WorkunitRow& wu, const ResultRow& result,
                                       const std::vector<StoredFile>& outputs,
                                       const std::set<std::string>& live_references);

enum class DeleteAttempt {
  Deleted,
  NotFound,  // already gone (another file deleter, or never uploaded): nothing to do
  Failed,    // could not unlink (permissions, missing directory): try again later
};

struct FileAttempt {
  std::string name;
  DeleteAttempt outcome = DeleteAttempt::Deleted;
  std::string error;  // for Failed: why
};

struct FileDeletionDecision {
  // DONE when every selected file is gone; READY (unchanged) when some failed.
  FileDeleteState new_state = FileDeleteState::Done;
  bool retry = false;
  int deleted = 0;
  int not_found = 0;
  int failed = 0;
  std::vector<std::string> messages;  // one per failure, naming the row and the file
};

// How long a row whose files could not all be deleted waits before the next try, after its
// `failures`-th failure (1, 2, ...): 60 s, doubling each time, at most 6 hours. A file the
// daemon cannot unlink (permissions, a directory in its place) usually needs an admin;
// the row waits in file_delete_retry (db/file_store.h) meanwhile and never holds up others.
int64_t file_delete_retry_delay(int failures);

struct FileDeleteRetry {
  int failures = 0;       // this failure's number (1, 2, ...)
  int64_t next_time = 0;  // not tried again before then
};
// The retry after one more failure of a row that had failed `failures_before` times
// (0 when never) at `now`: failures_before + 1, after file_delete_retry_delay of it.
FileDeleteRetry next_file_delete_retry(int failures_before, int64_t now);

// After the shell tried to delete the files of FileSelection::delete_now for row
// `row_label` (e.g. "workunit 12" or "result 34"). Kept files do not stop DONE: the
// law's DONE means "the file deleter has attempted to delete the files".
FileDeletionDecision decide_after_deletion(const std::string& row_label,
                                           const std::vector<FileAttempt>& attempts);

}  // namespace tharsis
