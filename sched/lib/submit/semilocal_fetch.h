// submit_batch's `semilocal` input mode (BOINC's): the server fetches the file from a URL
// and stages it into download/ under its content-addressed name jf_<md5>. A server-side
// fetch lets a submitter make the server reach any address it can (SSRF), so the mode is
// off unless config.xml enables it (submit_limits.h) and the fetch is fenced: http and
// https only, redirects followed only to http(s) (at most 5), a byte limit enforced while
// the body streams in (the transfer stops at the first byte over it), bounded time.
#pragma once

#include <cstdint>
#include <string>

#include "lib/config/project_config.h"
#include "lib/result.h"

namespace tharsis {

struct FetchedFile {
  std::string name;  // jf_<md5>
  std::string md5;
  int64_t nbytes = 0;
};

// Fetches `url` into download/ (with the project's fan-out). A file of that name already
// there is kept (same content) and touched. Errors name the URL and the reason: an
// unsupported scheme or redirect, an HTTP status >= 400, more than `max_bytes`, a timeout.
Result<FetchedFile> fetch_semilocal(const std::string& url, const ProjectConfig& config, size_t max_bytes);

}  // namespace tharsis
