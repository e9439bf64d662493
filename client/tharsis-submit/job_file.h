// tharsis-submit's job file: one job per line, '#' starts a comment, blank lines skipped.
//   INPUT... [-- COMMAND LINE]
// Each INPUT is one input file of the job, in the app's order:
//   PATH                       a local file, sent inline (its content in the request)
//   staged:NAME                a file the project has in download/ (local_staged)
//   remote:NBYTES:MD5:URL      a file volunteers download from URL (remote)
// Pure: reading the local files is the caller's (read_inline).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/result.h"

namespace tharsis::submit_client {

struct JobInput {
  enum class Kind { Inline, Staged, Remote } kind = Kind::Inline;
  std::string value;  // local path (inline), file name (staged), URL (remote)
  int64_t nbytes = 0;
  std::string md5;
};

struct JobLine {
  std::vector<JobInput> inputs;
  std::string command_line;
};

// Errors name the line number and the token.
Result<std::vector<JobLine>> parse_job_file(std::string_view text);

// The submit_batch request for these jobs; `read_inline(path)` gives a local file's content.
Result<std::string> submit_batch_request(
    const std::string& authenticator, const std::string& app, const std::string& batch_name,
    const std::vector<JobLine>& jobs,
    const std::function<Result<std::string>(const std::string&)>& read_inline);

// Element text escaped for the request (the protocol's one escape, lib/protocol/xml_text.h).
std::string escape(std::string_view text);

}  // namespace tharsis::submit_client
