// Implementation of lib/sync_directory.h.
#include "lib/sync_directory.h"

#include <cerrno>
#include <cstring>

#include "lib/fd_closer.h"

namespace tharsis {

Status sync_directory(const std::string& dir, int at) {
  OwnedFd fd(::openat(at, dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd || ::fsync(fd.get()) != 0) return make_error("cannot sync " + dir + ": " + std::strerror(errno));
  return Status::success();
}

}  // namespace tharsis
