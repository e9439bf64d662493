// The file deleter's shell: for the workunits (inputs, in download/) and results (outputs,
// in upload/) of its shard with file_delete_state READY, read in batches of --batch rows
// and handled --units_per_commit rows at a time: select the files the rules allow
// (file_deleter_rules.h: never a file a live workunit still names; the live references of
// a whole chunk are read in one statement), unlink them — with a result's outputs their
// unfinished uploads (<name>.partial), and with a workunit's inputs the outputs and
// partial uploads of its results the law never marks (NO_REPLY and the like; one
// statement per chunk finds them) — then record DONE for the chunk's
// rows in one statement — except a row whose unlink failed, which stays READY, is logged
// and waits in file_delete_retry (file_delete_retry_delay: 60 s doubling up to 6 h), so
// it is retried later and never forgotten, while the batch reads skip it and newer READY
// rows go ahead (issue 18: more than --batch failing rows used to fill every batch). The
// inputs to unlink are first marked deleting in download_claim (db/file_store.h) and their
// users read again in that transaction: a workunit taking one of them meanwhile (a graph
// successor reusing a staged input, create_work reusing a file) either committed before —
// the file is kept — or waits and then finds it being deleted. The unlinks come after that
// commit and before DONE (which drops the marks): a crash in between leaves the rows READY
// and the re-run finds the files already gone. A workunit chunk's DONE is written in the
// next chunk's marking transaction (the pass's last in one of its own), so each chunk costs
// one commit, as one DONE statement did before the marks. DONE is written only where the row is still
// READY, so a row another deleter finished is left alone.
// Shard 0 also retires expired batches, cleans retired ones and empties sandboxes past
// their time (batch_cleanup.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "daemons/file_deleter/file_deleter_rules.h"
#include "db/file_store.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class FileDeleterPass final : public DaemonWork {
 public:
  explicit FileDeleterPass(const ProjectConfig& config) : config_(config) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;

 private:
  // What a chunk's unlinks leave to record: DONE for the rows whose files are all gone, a
  // retry time for the others, and the inputs' deleting marks to drop.
  struct Unrecorded {
    std::vector<std::string> marked;
    std::vector<int64_t> done;
    std::vector<FileDeleteFailure> failed;
    bool empty() const { return marked.empty() && done.empty() && failed.empty(); }
  };
  // Deletes one chunk's files and records what they leave; returns how many rows it
  // recorded DONE. A workunit chunk's record waits in `workunits_left_` for the next
  // chunk's marking transaction, so that each chunk costs one commit (record_left()
  // writes what is left at the end).
  template <class Row>
  int delete_chunk(Database& db, const std::vector<Row>& rows, int64_t now);
  // Records `left` for rows of `owner` in the caller's transaction; adds the rows recorded
  // DONE to `recorded` and the failures' retry times to `retries` (logged after the commit).
  void record(Database& d, FileOwner owner, const Unrecorded& left, int64_t now, int& recorded,
              std::vector<std::pair<const FileDeleteFailure*, FileDeleteRetry>>& retries);
  // record() in a transaction of its own; returns the rows recorded DONE.
  int record_alone(Database& db, FileOwner owner, const Unrecorded& left, int64_t now);
  int record_left(Database& db, int64_t now);

  Unrecorded workunits_left_;

  const ProjectConfig& config_;
  // Where each queue's last read ended (lib/daemon/cursor_read.h): a read goes on from there
  // instead of walking again over the index entries of the rows already done.
  int64_t workunit_cursor_ = 0;
  int64_t result_cursor_ = 0;
};

}  // namespace tharsis
