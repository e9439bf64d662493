// Makes the names a directory holds durable — its entries, not its files' data: the step
// after a file is created, linked or renamed whose name must outlive a power cut (the
// file's own bytes need an fsync of the file first).
#pragma once

#include <fcntl.h>

#include <string>

#include "lib/result.h"

namespace tharsis {

// Opens `dir` (relative to the directory `at`, or the working directory) and fsyncs it;
// the error names the directory and the cause.
Status sync_directory(const std::string& dir, int at = AT_FDCWD);

}  // namespace tharsis
