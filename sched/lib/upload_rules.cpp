// Implementation of sched/lib/upload_rules.h.
#include "sched/lib/upload_rules.h"

#include <algorithm>

namespace tharsis {

bool same_md5(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) { return lower(x) == lower(y); });
}

std::optional<std::string> output_result_name(std::string_view file_name) {
  size_t underscore = file_name.rfind('_');
  if (underscore == std::string_view::npos || underscore == 0 || underscore + 1 == file_name.size()) {
    return std::nullopt;
  }
  std::string_view index = file_name.substr(underscore + 1);
  if (!std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::string(file_name.substr(0, underscore));
}

UploadDecision decide_upload(const std::string& file_name, int64_t nbytes, const std::string& md5,
                             const std::optional<OutputOwner>& owner,
                             const std::optional<StoredOutput>& complete) {
  if (!owner || std::find(owner->output_names.begin(), owner->output_names.end(), file_name) ==
                    owner->output_names.end()) {
    return {UploadVerdict::Refuse, "no result has an output file named " + file_name};
  }
  if (complete) {
    if (complete->size == nbytes && !md5.empty() && same_md5(md5, complete->md5)) {
      return {UploadVerdict::AcknowledgeRepeat, ""};
    }
    return {UploadVerdict::Refuse, "file " + file_name + " is already complete on the server (" +
                                       std::to_string(complete->size) +
                                       " bytes); a complete file is never rewritten"};
  }
  if (!takes_output(owner->state)) {
    return {UploadVerdict::Refuse, "the result of file " + file_name + " no longer takes output (reported, " +
                                       "timed out or not needed)"};
  }
  return {UploadVerdict::Write, ""};
}

}  // namespace tharsis
