// Closes a file descriptor when its scope ends, leaving errno as it was: the errno of a
// failed read is still there for the caller after the close that follows it. FdCloser
// guards a descriptor in one scope; OwnedFd can be handed on (moved) to keep it longer.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace tharsis {

struct FdCloser {
  int fd;
  ~FdCloser() {
    const int error = errno;
    ::close(fd);
    errno = error;
  }
};

// A descriptor with one owner, which closes it (errno kept); -1 when it holds none.
class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  OwnedFd(OwnedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OwnedFd& operator=(OwnedFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  // Gives the descriptor up without closing it (e.g. to close it checking the result).
  int release() { return std::exchange(fd_, -1); }
  void reset() {
    if (fd_ < 0) return;
    FdCloser closing{fd_};
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace tharsis
