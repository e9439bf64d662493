// A daemon's pid file, held under an exclusive flock for the daemon's lifetime, so a
// second instance of the same daemon and shard refuses to start; a stale file left by a
// killed daemon (no lock held) is simply taken over. Removed on clean exit.
#pragma once

#include <memory>
#include <string>

#include "lib/result.h"

namespace tharsis {

class PidFile {
 public:
  // Creates/locks `path` and writes our pid. Fails naming the pid already running.
  static Result<std::unique_ptr<PidFile>> acquire(const std::string& path);
  ~PidFile();
  PidFile(const PidFile&) = delete;
  PidFile& operator=(const PidFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  PidFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

}  // namespace tharsis
