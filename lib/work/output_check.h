// Does a result's output file on the server hold what its host reported? When a host
// reports a result it states each output's size and md5 (<file_info><name> <nbytes>
// <md5_cksum>, kept in result.xml_doc_out by the scheduler). The validator and the
// assimilator use a file only if it still matches that report: bytes swapped in after
// the report (a forged re-upload, a corrupted disk) make the result invalid, never an
// input. The rule (match_reported_output) is pure; verify_output_file is its shell (open
// and fstat, then md5 of the open file only when the size already matches: each file is
// looked up once and hashed at most once per call).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/config/project_config.h"
#include "lib/fd_closer.h"
#include "lib/result.h"

namespace tharsis {

// One output as its host reported it. nbytes < 0 or an empty md5 mean "not stated".
struct ReportedOutput {
  std::string name;
  int64_t nbytes = -1;
  std::string md5;  // lowercase hex
};

// The <file_info> entries of a result's xml_doc_out, in document order. An <nbytes> that is
// not a whole number of bytes (negative, fractional, not a number) counts as not stated.
// Malformed XML is an error naming the offset.
Result<std::vector<ReportedOutput>> reported_outputs_in(const std::string& xml_doc_out);

// The entry for `name`, or nullptr.
const ReportedOutput* find_reported(const std::vector<ReportedOutput>& reported, const std::string& name);

// xml_doc_out text for these outputs, in the scheduler's form (for tests and simulators
// that report without going through the scheduler RPC).
std::string reported_outputs_xml(const std::vector<ReportedOutput>& outputs);

enum class OutputMatch {
  Match,
  NotReported,  // no entry for the file, or its size or md5 not stated
  SizeDiffers,
  Md5Differs,
};

// What the server holds: the file's size, and its md5 (lowercase hex) — which the shell
// computes only when the size equals the reported one (empty otherwise).
struct OutputOnDisk {
  int64_t size = 0;
  std::string md5;
};

// The rule: a file matches when its host stated both its size and its md5, and the file
// has that size and that md5 (hex compared without regard to case).
OutputMatch match_reported_output(const ReportedOutput* reported, const OutputOnDisk& on_disk);

// True when match_reported_output needs the md5 of a file of `size` bytes (the size alone
// does not decide already).
bool md5_needed(const ReportedOutput* reported, int64_t size);

// One line for logs: "<name>: reported 95 bytes md5 e74f..., found 93 bytes md5 ...".
std::string describe_output_match(OutputMatch match, const std::string& name, const ReportedOutput* reported,
                                  const OutputOnDisk& on_disk);

// The shell's verdict on one file.
struct OutputVerdict {
  OutputMatch match = OutputMatch::Match;
  OutputOnDisk on_disk;
  int error_number = 0;  // non-zero: the file could not be read (errno); `match` is meaningless
  std::string message;   // for a read error or a mismatch: what was expected and found
};

// Stats `path` (and hashes it when the size matches) and applies the rule for `reported`
// (nullptr: nothing reported for this file). `name` is for messages. The file is opened
// (never blocking: a FIFO is refused as not a regular file) and examined through the
// descriptor; one that cannot be opened is stat'ed by path, so the verdict is the same
// (a size that differs is found without reading it; a missing file is its stat's errno).
OutputVerdict verify_output_file(const std::string& path, const std::string& name,
                                 const ReportedOutput* reported);

// The same, keeping the file open when it matches: `kept` then owns a descriptor of the
// very file whose bytes were checked, so a caller that links or copies from it keeps
// exactly those bytes, whatever later happens to the name (a swap, a deletion). Left empty
// when the verdict is anything but a match.
OutputVerdict verify_output_file(const std::string& path, const std::string& name,
                                 const ReportedOutput* reported, OwnedFd& kept);

// The xml_doc_out a host would report for `result` given the files now in upload/: each
// output of result.xml_doc_in with its size and md5, read from disk. For tests and
// simulators; fails when an output file is missing.
Result<std::string> describe_uploaded_outputs(const ProjectConfig& config, const std::string& xml_doc_in);

}  // namespace tharsis
