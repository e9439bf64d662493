// The default assimilation handler's effect: a workunit's canonical outputs kept in a
// results store, one directory per workunit, with a MANIFEST (one line per file: name,
// size, md5) — or, for a workunit that ended in error, an ERROR file with its error mask.
//
// The outputs come checked against their result's report and still open (CheckedOutput):
// each is hard-linked from its open descriptor, so the inode stored is the one whose bytes
// were checked, and nothing is read twice (the file_deleter later removes only the
// upload/ name). When upload/ is on another file system they are copied through a temp
// file + fsync + rename and the copy checked again before it gets its name, and the
// directory is synced, so the copy outlives a power cut once the workunit is DONE.
// Exactly-once: re-running the handler for the same workunit rewrites the same content,
// so a kill between the handler and the assimilator's DONE commit repeats nothing
// visible. The manifest is written last, so its presence means the store is complete.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/fd_closer.h"
#include "lib/result.h"
#include "lib/work/output_check.h"

namespace tharsis {

// One output file kept in the store. (Not "StoredOutput": sched/lib/upload_rules.h has a
// different tharsis::StoredOutput, and two types of one name in one program break the
// one-definition rule; a unity batch including both headers refused to compile.)
struct ArchivedOutput {
  std::string name;  // as in upload/ (the store keeps the name)
  int64_t size = 0;
  std::string md5;
};

// <store_dir>/<wu_name>/ for the workunit.
std::string workunit_store_dir(const std::string& store_dir, const std::string& wu_name);

// One canonical output to check: its path in upload/, and what its result reported for it.
struct CanonicalOutput {
  std::string path;
  ReportedOutput reported;
};

// One canonical output checked against its report (verify_output_file's match), kept
// open on the bytes checked.
struct CheckedOutput {
  std::string path;  // in upload/ (named in messages; the store keeps the file name)
  ArchivedOutput file;
  OwnedFd fd;
};

// Checks `output` against its report, keeping it open when it matches; otherwise the
// verdict says what differs or failed.
OutputVerdict check_output(const CanonicalOutput& output, CheckedOutput& checked);

// The results store of one assimilator worker (one pass at a time: not shared between
// threads). It holds <dir> open and makes each workunit's names relative to it, so a
// workunit's system calls walk two path components, not the whole path (the store's file
// work is most of the assimilator's CPU: docs/benchmarks.md). The path is looked up again
// at most every `recheck`, and at once when the directory held is found gone: a store
// moved, removed or made anew by the admin is followed from then on.
class ResultsStore {
 public:
  explicit ResultsStore(std::string dir,
                        std::chrono::steady_clock::duration recheck = std::chrono::seconds(1));

  const std::string& dir() const { return dir_; }

  // Gives each checked output its name in the workunit's directory — a link to the inode
  // it is open on (or a copy of it, checked again) — and then writes MANIFEST. Fails,
  // naming the file, and leaving no MANIFEST and none of the names it made, when an output
  // cannot be placed (gone from upload/ since its check, or an I/O error).
  Result<std::vector<ArchivedOutput>> store_outputs(const std::string& wu_name,
                                                    const std::vector<CheckedOutput>& outputs);

  // Writes <dir>/<wu_name>/ERROR with the error mask and a one-line reason.
  Status store_error(const std::string& wu_name, int error_mask, const std::string& reason);

 private:
  // The store's directory, open (made first when missing); `again` looks it up now.
  Result<int> directory(bool again = false);
  // Makes <wu_name>/ in the store: `existed` says it was there before.
  Status make_workunit_directory(const std::string& wu_name, bool& existed);
  // Places one checked output at `name` (relative to the store), replacing a name an
  // earlier run left; `copied` is set when it had to be copied.
  Status place_output(const CheckedOutput& output, const std::string& name, const std::string& hidden,
                      bool& copied);
  // Writes `content` to <wu_name>/<file> through a hidden temp file and a rename.
  Status write_record(const std::string& wu_name, const std::string& file, std::string_view content);

  std::string dir_;
  std::chrono::steady_clock::duration recheck_;
  OwnedFd fd_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
  std::chrono::steady_clock::time_point looked_up_{};
  bool links_from_descriptor_ = true;  // linkat(AT_EMPTY_PATH) allowed to this process
  uint64_t records_written_ = 0;       // the temp files' names, with the process id
};

// Reads a MANIFEST back (for tests, tools/check, output downloads and the graph
// collector). An empty one is read from the files beside it, by name, hashed: the store
// writes MANIFEST without an fsync (one per workunit would cost the stage most of its
// rate on a journaled file system), so a power cut soon after can leave it empty while its
// links, and the workunit's DONE, survived; the files are the checked ones by construction.
Result<std::vector<ArchivedOutput>> read_manifest(const std::string& store_dir, const std::string& wu_name);

}  // namespace tharsis
