// A daemon's pid file, held under an exclusive flock for the daemon's lifetime, so a
// second instance of the same daemon and shard refuses to start. The lock, not the file's
// existence, says who runs: a file left by a killed daemon (no lock held) is stale and is
// taken over. Removed on clean exit (only by the process that wrote it).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "lib/result.h"

namespace tharsis {

class PidFile {
 public:
  // Creates `path` (O_EXCL) or opens the existing one, takes the lock and writes our pid.
  // Fails, naming the running pid, when another live process holds the lock.
  static Result<std::unique_ptr<PidFile>> acquire(const std::string& path);
  ~PidFile();
  PidFile(const PidFile&) = delete;
  PidFile& operator=(const PidFile&) = delete;
  const std::string& path() const { return path_; }
  // The pid written in a stale file this one replaced (0: the file was new or empty).
  long replaced_stale_pid() const { return replaced_stale_pid_; }

 private:
  PidFile(std::string path, int fd, long stale_pid);
  std::string path_;
  int fd_;
  pid_t owner_;  // a forked child inherits the object but must not remove the file
  long replaced_stale_pid_;
};

}  // namespace tharsis
