// Implementation of lib/daemon/pid_file.h.
#include "lib/daemon/pid_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tharsis {
namespace {

std::string read_pid_text(int fd) {
  char buffer[32] = {};
  ssize_t n = pread(fd, buffer, sizeof buffer - 1, 0);
  std::string text = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// True when `path` still names the file open on `fd`. An exiting holder removes the file
// while we wait between open() and flock(); a lock on that orphaned inode guards nothing.
bool path_names_fd(const std::string& path, int fd) {
  struct stat by_fd {
  }, by_path{};
  if (fstat(fd, &by_fd) != 0 || stat(path.c_str(), &by_path) != 0) return false;
  return by_fd.st_dev == by_path.st_dev && by_fd.st_ino == by_path.st_ino;
}

}  // namespace

PidFile::PidFile(std::string path, int fd, long stale_pid)
    : path_(std::move(path)), fd_(fd), owner_(getpid()), replaced_stale_pid_(stale_pid) {}

Result<std::unique_ptr<PidFile>> PidFile::acquire(const std::string& path) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    bool created = true;
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) {
      created = false;
      fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT) continue;  // removed by its exiting holder: try again
    }
    if (fd < 0) return make_error("cannot open pid file " + path + ": " + std::strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int error = errno;
      std::string holder = read_pid_text(fd);
      close(fd);
      if (error != EWOULDBLOCK)
        return make_error("cannot lock pid file " + path + ": " + std::strerror(error));
      return make_error("another instance (pid " + (holder.empty() ? "?" : holder) + ") holds " + path +
                        "; not starting");
    }
    if (!path_names_fd(path, fd)) {
      close(fd);
      continue;
    }
    long stale_pid = created ? 0 : std::atol(read_pid_text(fd).c_str());
    std::string pid = std::to_string(getpid()) + "\n";
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
      int error = errno;
      close(fd);
      return make_error("cannot write pid file " + path + ": " + std::strerror(error));
    }
    return std::unique_ptr<PidFile>(new PidFile(path, fd, stale_pid));
  }
  return make_error("pid file " + path + " kept being replaced while locking it; not starting");
}

PidFile::~PidFile() {
  // Unlink while still holding the lock, and only our own file: a child forked after
  // acquire() inherits this object, and an admin may have removed the file by hand.
  if (getpid() == owner_ && path_names_fd(path_, fd_)) unlink(path_.c_str());
  close(fd_);
}

}  // namespace tharsis
