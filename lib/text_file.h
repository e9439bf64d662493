// Whole-file text I/O with error messages that name the path: small config, key and
// template files that are read or written in one go.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "lib/result.h"

namespace tharsis {

// Reads the whole file.
Result<std::string> read_text_file(const std::string& path);

// Writes `content` to `path` atomically (a temp file in the same directory, then rename)
// with permission bits `mode` (e.g. 0600 for private keys), replacing any existing file.
Status write_text_file(const std::string& path, std::string_view content, mode_t mode = 0644);

}  // namespace tharsis
