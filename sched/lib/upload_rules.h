// Whether the upload handler takes an upload of a result's output file: the pure rule,
// decided before a byte of the file is read (sched/lib/upload_handler.h is the shell).
//  1. The file must be an output of an existing result: output names are
//     "<result name>_<i>" (lib/work/file_refs.h), and the result's xml_doc_in must list it.
//  2. A complete file is never rewritten: a repeat with the same size and md5 is
//     acknowledged (the client may have lost our first answer), any other is refused.
//  3. Otherwise the result must still take its output (sched/lib/result_acceptance.h):
//     in progress, or timed out while its workunit is still open. So once a result is
//     reported, validated or given up, nobody can replace or add its output.
// Every refusal is permanent for the client (<status>-1</status>): sending the same
// request again can never succeed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sched/lib/result_acceptance.h"

namespace tharsis {

// The result an output file name belongs to: "<result name>_<i>" -> "<result name>";
// nullopt when the name does not end in "_" and a number.
std::optional<std::string> output_result_name(std::string_view file_name);

// The result an upload names, as the database has it.
struct OutputOwner {
  std::vector<std::string> output_names;  // its <file_info> names (xml_doc_in)
  ResultAcceptanceView state;
};

// A complete file already stored under the upload's name.
struct StoredOutput {
  int64_t size = 0;
  std::string md5;  // may be empty when the size already differs (not needed then)
};

// Whether two md5 digests in hex are the same (case does not matter).
bool same_md5(std::string_view a, std::string_view b);

enum class UploadVerdict { Write, AcknowledgeRepeat, Refuse };

struct UploadDecision {
  UploadVerdict verdict = UploadVerdict::Refuse;
  std::string reason;  // for Refuse: the message for the client
};

UploadDecision decide_upload(const std::string& file_name, int64_t nbytes, const std::string& md5,
                             const std::optional<OutputOwner>& owner,
                             const std::optional<StoredOutput>& complete);

}  // namespace tharsis
