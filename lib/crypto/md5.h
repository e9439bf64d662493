// MD5 digests as lowercase hex, the form BOINC uses everywhere: file checksums
// (<md5_cksum>), the text that code-signing and upload-certificate signatures cover, and
// the fan-out directory of a file name (lib/work/fanout.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/result.h"

namespace tharsis {

using Md5Digest = std::array<unsigned char, 16>;

// MD5 of `data`, the 16 bytes themselves (what md5_hex writes out in hex).
Md5Digest md5_bytes(std::string_view data);

// MD5 of `data` as 32 lowercase hex digits. md5_hex("") == "d41d8cd98f00b204e9800998ecf8427e".
std::string md5_hex(std::string_view data);

// MD5 of the whole content of the file at `path`, read in blocks (any size). Fails with a
// message naming the path when the file cannot be opened or read.
Result<std::string> md5_file_hex(const std::string& path);

// MD5 of what is left to read of the open file `fd`, read to its end; `path` names it in
// messages. regular_size >= 0 says fd is a regular file that had that many bytes (fstat):
// then a short read once that many are in ends it, without a further read to see the end.
Result<std::string> md5_fd_hex(int fd, const std::string& path, int64_t regular_size = -1);

}  // namespace tharsis
