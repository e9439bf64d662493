// The default assimilation handler's effect: a workunit's canonical outputs copied into a
// results store, one directory per workunit, with a MANIFEST (one line per file: name,
// size, md5) — or, for a workunit that ended in error, an ERROR file with its error mask.
//
// Outputs are hard-linked from upload/ (the file_deleter later removes only the upload/
// name), or copied through temp file + fsync + rename when upload/ is on another file
// system, and checked against their result's report before they get their names.
// Exactly-once: re-running the handler for the same workunit rewrites the same content,
// so a kill between the handler and the assimilator's DONE commit repeats nothing
// visible. The manifest is written last, so its presence means the copy is complete.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

// One canonical output to store: its path in upload/, and what its result reported for it.
struct CanonicalOutput {
  std::string path;
  ReportedOutput reported;
};

// Links (or copies) each output into the workunit's store directory under a hidden name,
// checks the placed bytes against the size and md5 the result reported
// (lib/work/output_check.h; the md5 is the one MANIFEST needs anyway), and only when every
// file matches gives them their names and writes MANIFEST. Fails, naming the file and
// leaving no MANIFEST and nothing under an output's name, when an output is missing,
// unreadable, or differs from its report: forged bytes are never stored.
Result<std::vector<ArchivedOutput>> store_canonical_outputs(const std::string& store_dir,
                                                            const std::string& wu_name,
                                                            const std::vector<CanonicalOutput>& outputs);

// Writes <store>/<wu_name>/ERROR with the error mask and a one-line reason.
Status store_workunit_error(const std::string& store_dir, const std::string& wu_name, int error_mask,
                            const std::string& reason);

// Reads a MANIFEST back (for tests, tools/check and the graph collector).
Result<std::vector<ArchivedOutput>> read_manifest(const std::string& store_dir, const std::string& wu_name);

}  // namespace tharsis
