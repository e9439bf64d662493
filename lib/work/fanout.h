// BOINC's hashed fan-out of download/ and upload/: a file named N lives in
// <base>/<fanout_dir(N)>/N so that no directory holds millions of files. The scheduler,
// create_work, the upload handler and file_deleter must all agree on this mapping, and it
// must match BOINC's (dir_hier_path) so BOINC tools find the same files.
#pragma once

#include <string>
#include <string_view>

#include "lib/result.h"

namespace tharsis {

// The fan-out directory name of file `name`: take md5_hex(name), read its hex digits 1..7
// (7 digits, skipping the first) as a number, reduce it mod `fanout`, print it in
// lowercase hex without leading zeros ("1a3", "3", "0"). This is BOINC's filename_hash.
// fanout <= 0 means a flat layout and yields "".
std::string fanout_dir(std::string_view name, int fanout);

// "<base>/<fanout_dir(name)>/<name>", or "<base>/<name>" when fanout <= 0. A trailing '/'
// on `base` is not doubled. Creates nothing.
std::string fanout_path(std::string_view base, std::string_view name, int fanout);

// Same path, creating the fan-out directory (mode 0775) if it is missing. Use it when
// writing a file (create_work staging, upload handler); fails with the path and errno text.
Result<std::string> fanout_path_create(std::string_view base, std::string_view name, int fanout);

// Creates all `fanout` directories "0" .. "<fanout-1 in hex>" under `base` (which must
// exist); existing ones are fine. make_project uses it so every later writer, including the
// web server's user, finds them in place.
Status create_fanout_dirs(std::string_view base, int fanout);

}  // namespace tharsis
