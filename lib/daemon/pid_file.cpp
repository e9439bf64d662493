// Implementation of lib/daemon/pid_file.h.
#include "lib/daemon/pid_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace tharsis {

Result<std::unique_ptr<PidFile>> PidFile::acquire(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return make_error("cannot open pid file " + path + ": " + std::strerror(errno));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buffer[32] = {};
    ssize_t n = pread(fd, buffer, sizeof buffer - 1, 0);
    close(fd);
    std::string holder = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "?";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return make_error("another instance (pid " + holder + ") holds " + path + "; not starting");
  }
  std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    close(fd);
    return make_error("cannot write pid file " + path + ": " + std::strerror(errno));
  }
  return std::unique_ptr<PidFile>(new PidFile(path, fd));
}

PidFile::~PidFile() {
  unlink(path_.c_str());
  close(fd_);
}

}  // namespace tharsis
