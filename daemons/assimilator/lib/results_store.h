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

#include <cstdint>
#include <string>
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

// Gives each checked output its name in the workunit's store directory — a link to the
// inode it is open on (or a copy of it, checked again) — and then writes MANIFEST. Fails,
// naming the file, and leaving no MANIFEST and none of the names it made, when an output
// cannot be placed (gone from upload/ since its check, or an I/O error).
Result<std::vector<ArchivedOutput>> store_canonical_outputs(const std::string& store_dir,
                                                            const std::string& wu_name,
                                                            const std::vector<CheckedOutput>& outputs);

// Writes <store>/<wu_name>/ERROR with the error mask and a one-line reason.
Status store_workunit_error(const std::string& store_dir, const std::string& wu_name, int error_mask,
                            const std::string& reason);

// Reads a MANIFEST back (for tests, tools/check and the graph collector).
Result<std::vector<ArchivedOutput>> read_manifest(const std::string& store_dir, const std::string& wu_name);

}  // namespace tharsis
