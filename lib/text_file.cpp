// Implementation of lib/text_file.h with POSIX calls, so the mode is set at creation and
// a private key is never readable by others, not even for an instant.
#include "lib/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

namespace tharsis {

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error(path + ": read error");
  return text.str();
}

Status write_text_file(const std::string& path, std::string_view content, mode_t mode) {
  // Unique per process and call, so threads (or processes) writing one path never share a
  // temporary file; the last rename wins.
  static std::atomic<uint64_t> writes{0};
  const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(writes++);
  return write_file_replacing(AT_FDCWD, temp, path, content, mode, FileMode::Exact);
}

Status write_file_replacing(int at, const std::string& temp, const std::string& name,
                            std::string_view content, mode_t mode, FileMode rule) {
  int fd = ::openat(at, temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return make_error(temp + ": cannot create: " + std::strerror(errno));
  // The temp removed (and closed while still open), the error named after `name`.
  auto fail = [&](const std::string& what) -> Status {
    int saved = errno;
    if (fd >= 0) ::close(fd);
    ::unlinkat(at, temp.c_str(), 0);
    return make_error(name + ": " + what + ": " + std::strerror(saved));
  };
  if (rule == FileMode::Exact && ::fchmod(fd, mode) != 0) return fail("cannot set permissions");
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write failed");
    }
    done += static_cast<size_t>(n);
  }
  const int closing = std::exchange(fd, -1);
  if (::close(closing) != 0) return fail("close failed");
  if (::renameat(at, temp.c_str(), at, name.c_str()) != 0) return fail("cannot rename into place");
  return Status::success();
}

}  // namespace tharsis
