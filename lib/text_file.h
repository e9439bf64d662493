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

// How a written file gets its permission bits: exactly `mode` (an fchmod after creating
// it, so a private key is 0600 and a public file 0644 whatever the umask), or `mode` less
// the umask, as any file made (one system call fewer, for writers on a hot path).
enum class FileMode { Exact, LessUmask };

// write_text_file's core: writes `content` to `name` (relative to the directory `at`;
// AT_FDCWD for the working directory) through the temp file `temp` beside it — made anew,
// written, closed and renamed over `name` — so `name` is as it was or complete, never
// partial; the temp is removed on failure. The caller names the temp: unique to its
// process and write, so no two writers ever share one.
Status write_file_replacing(int at, const std::string& temp, const std::string& name,
                            std::string_view content, mode_t mode, FileMode rule);

}  // namespace tharsis
