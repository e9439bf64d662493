// Closes a file descriptor when its scope ends, leaving errno as it was: the errno of a
// failed read is still there for the caller after the close that follows it.
#pragma once

#include <unistd.h>

#include <cerrno>

namespace tharsis {

struct FdCloser {
  int fd;
  ~FdCloser() {
    const int error = errno;
    ::close(fd);
    errno = error;
  }
};

}  // namespace tharsis
