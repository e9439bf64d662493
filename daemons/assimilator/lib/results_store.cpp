// Implementation of daemons/assimilator/lib/results_store.h.
#include "daemons/assimilator/lib/results_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string_view>
#include <utility>

#include "lib/crypto/md5.h"
#include "lib/fd_closer.h"
#include "lib/sync_directory.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

namespace fs = std::filesystem;

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

// Copies the open file `from` (from its start) to `dst` (relative to the directory `at`)
// through dst.tmp + fsync + rename: dst is either absent, or complete.
Status copy_atomically(int from, const std::string& src, int at, const std::string& dst) {
  if (::lseek(from, 0, SEEK_SET) != 0) return make_error("cannot read " + src + ": " + std::strerror(errno));
  std::string tmp = dst + ".tmp";
  OwnedFd out(::openat(at, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!out) return make_error("cannot create " + tmp + ": " + std::strerror(errno));
  char buffer[1 << 16];
  ssize_t n = 0;
  std::string failure;
  while ((n = ::read(from, buffer, sizeof buffer)) > 0) {
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(out.get(), buffer + done, static_cast<size_t>(n - done));
      if (w < 0) {
        failure = "write to " + tmp + " failed: " + std::strerror(errno);
        break;
      }
      done += w;
    }
    if (!failure.empty()) break;
  }
  if (n < 0) failure = "read of " + src + " failed: " + std::strerror(errno);
  if (failure.empty() && ::fsync(out.get()) != 0)
    failure = "fsync of " + tmp + " failed: " + std::strerror(errno);
  out.reset();
  if (failure.empty() && ::renameat(at, tmp.c_str(), at, dst.c_str()) != 0) {
    failure = "rename to " + dst + " failed: " + std::strerror(errno);
  }
  if (!failure.empty()) {
    ::unlinkat(at, tmp.c_str(), 0);
    return make_error(failure);
  }
  return Status::success();
}

// Hidden names a killed earlier run left (".<name>.incoming", its copies' ".tmp", and
// the records' temp files): never left beside the stored files.
void remove_unchecked_outputs(const std::string& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 10 && name[0] == '.' &&
        (name.ends_with(".incoming") || name.ends_with(".incoming.tmp"))) {
      fs::remove(it->path(), ec);
    }
  }
}

}  // namespace

std::string workunit_store_dir(const std::string& store_dir, const std::string& wu_name) {
  return store_dir + "/" + wu_name;
}

OutputVerdict check_output(const CanonicalOutput& output, CheckedOutput& checked) {
  checked.path = output.path;
  checked.file.name = output.path.substr(output.path.rfind('/') + 1);  // npos + 1: all of it
  OutputVerdict verdict = verify_output_file(output.path, checked.file.name, &output.reported, checked.fd);
  checked.file.size = verdict.on_disk.size;
  checked.file.md5 = verdict.on_disk.md5;
  return verdict;
}

ResultsStore::ResultsStore(std::string dir, std::chrono::steady_clock::duration recheck)
    : dir_(std::move(dir)), recheck_(recheck) {}

Result<int> ResultsStore::directory(bool again) {
  const auto now = std::chrono::steady_clock::now();
  if (fd_ && !again && now - looked_up_ < recheck_) return fd_.get();
  looked_up_ = now;
  struct stat named {};
  if (fd_ && ::stat(dir_.c_str(), &named) == 0 && named.st_dev == device_ && named.st_ino == inode_) {
    return fd_.get();  // still the directory held
  }
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return make_error("cannot create " + dir_ + ": " + ec.message());
  OwnedFd fd(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  struct stat held {};
  if (!fd || ::fstat(fd.get(), &held) != 0)
    return make_error("cannot open " + dir_ + ": " + std::strerror(errno));
  fd_ = std::move(fd);
  device_ = held.st_dev;
  inode_ = held.st_ino;
  return fd_.get();
}

Status ResultsStore::make_workunit_directory(const std::string& wu_name, bool& existed) {
  existed = false;
  for (bool again : {false, true}) {
    auto at = directory(again);
    if (!at.ok()) return make_error(at.error());
    if (::mkdirat(*at, wu_name.c_str(), 0777) == 0) return Status::success();
    if (errno == EEXIST) {
      existed = true;
      return Status::success();
    }
    if (errno != ENOENT) break;  // ENOENT: the directory held was removed; look it up again
  }
  return make_error("cannot create " + workunit_store_dir(dir_, wu_name) + ": " + std::strerror(errno));
}

// A link to the inode the output is open on, from its descriptor (no path: no swap of its
// upload/ name since the check can reach the store); through /proc/self/fd where this
// kernel refuses that to the process (before Linux 6.10 it needs CAP_DAC_READ_SEARCH).
// Where even that is refused, by its path, kept only if the name still leads to the inode
// checked; on another file system, a copy of the open file, checked again (its bytes could
// have changed since). A `name` already there is replaced atomically, through `hidden`.
Status ResultsStore::place_output(const CheckedOutput& output, const std::string& name,
                                  const std::string& hidden, bool& copied) {
  const int at = fd_.get();
  auto link_checked = [&](const std::string& to) {
    if (links_from_descriptor_) {
      if (::linkat(output.fd.get(), "", at, to.c_str(), AT_EMPTY_PATH) == 0) return 0;
      if (errno == EEXIST || errno == EXDEV || errno == ENOSPC || errno == EMLINK) return errno;
    }
    const std::string by_fd = "/proc/self/fd/" + std::to_string(output.fd.get());
    if (::linkat(AT_FDCWD, by_fd.c_str(), at, to.c_str(), AT_SYMLINK_FOLLOW) != 0) return errno;
    links_from_descriptor_ = false;  // refused from the descriptor, allowed through /proc
    return 0;
  };
  int error = link_checked(name);
  if (error == 0) return Status::success();
  if (error == EEXIST) {  // a re-run after a kill: replace it, whatever it is
    ::unlinkat(at, hidden.c_str(), 0);
    error = link_checked(hidden);
    if (error == 0) {
      if (::renameat(at, hidden.c_str(), at, name.c_str()) == 0) return Status::success();
      error = errno;
      ::unlinkat(at, hidden.c_str(), 0);
      return make_error("cannot rename " + hidden + ": " + std::strerror(error));
    }
  }
  struct stat checked {};
  if (::fstat(output.fd.get(), &checked) != 0)
    return make_error("cannot stat " + output.path + ": " + std::strerror(errno));
  if (error != EXDEV) {
    ::unlinkat(at, hidden.c_str(), 0);
    if (::linkat(AT_FDCWD, output.path.c_str(), at, hidden.c_str(), 0) == 0) {
      struct stat placed {};
      if (::fstatat(at, hidden.c_str(), &placed, 0) == 0 && same_file(placed, checked) &&
          ::renameat(at, hidden.c_str(), at, name.c_str()) == 0) {
        return Status::success();
      }
      ::unlinkat(at, hidden.c_str(), 0);
      return make_error(output.path + " changed since its check: not stored");
    }
    error = errno;
    if (error == ENOENT) return make_error("cannot link output " + output.path + ": " + std::strerror(error));
  }
  copied = true;
  if (Status copy = copy_atomically(output.fd.get(), output.path, at, hidden); !copy.ok()) return copy;
  ReportedOutput expected{output.file.name, output.file.size, output.file.md5};
  OutputVerdict verdict = verify_output_file(dir_ + "/" + hidden, output.file.name, &expected);
  if (verdict.error_number != 0 || verdict.match != OutputMatch::Match) {
    ::unlinkat(at, hidden.c_str(), 0);
    return make_error("not stored: " + output.path + " changed while copied: " + verdict.message);
  }
  if (::renameat(at, hidden.c_str(), at, name.c_str()) != 0) {
    error = errno;
    ::unlinkat(at, hidden.c_str(), 0);
    return make_error("cannot rename " + hidden + ": " + std::strerror(error));
  }
  return Status::success();
}

Status ResultsStore::write_record(const std::string& wu_name, const std::string& file,
                                  std::string_view content) {
  // Hidden, and unique to this process and write (a killed run's is removed by the next);
  // the umask applies, as to the store's directories.
  static const std::string process = std::to_string(::getpid());
  const std::string temp =
      wu_name + "/." + file + "." + process + "." + std::to_string(records_written_++) + ".incoming";
  Status written =
      write_file_replacing(fd_.get(), temp, wu_name + "/" + file, content, 0644, FileMode::LessUmask);
  if (!written.ok()) return make_error(dir_ + ": " + written.error());
  return written;
}

Result<std::vector<ArchivedOutput>> ResultsStore::store_outputs(const std::string& wu_name,
                                                                const std::vector<CheckedOutput>& outputs) {
  // One mkdir in the common case (a new directory, with nothing of an earlier run to
  // clear out): making inodes is most of the assimilator's CPU (docs/benchmarks.md).
  bool dir_existed = false;
  if (Status made = make_workunit_directory(wu_name, dir_existed); !made.ok())
    return make_error(made.error());
  const int at = fd_.get();
  if (dir_existed) remove_unchecked_outputs(workunit_store_dir(dir_, wu_name));
  std::vector<std::string> placed;
  auto give_up = [&](const std::string& why) -> Result<std::vector<ArchivedOutput>> {
    for (const auto& name : placed) ::unlinkat(at, name.c_str(), 0);
    if (!dir_existed) ::unlinkat(at, wu_name.c_str(), AT_REMOVEDIR);  // only if empty
    return make_error(why);
  };
  std::vector<ArchivedOutput> stored;
  std::string manifest;  // a string, not a stream: no locale work per workunit
  bool copied_any = false;
  for (const auto& output : outputs) {
    if (!output.fd) return give_up(output.path + ": not checked, not stored");
    const std::string name = wu_name + "/" + output.file.name;
    // A name an earlier run gave is replaced atomically, never removed on failure: its
    // MANIFEST may be there (a kill after it, before the DONE commit).
    struct stat earlier {};
    const bool had_name = dir_existed && ::fstatat(at, name.c_str(), &earlier, AT_SYMLINK_NOFOLLOW) == 0;
    if (Status put = place_output(output, name, wu_name + "/." + output.file.name + ".incoming", copied_any);
        !put.ok()) {
      return give_up(put.error());
    }
    if (!had_name) placed.push_back(name);
    manifest.append(output.file.name).append(" ").append(std::to_string(output.file.size));
    manifest.append(" ").append(output.file.md5).append("\n");
    stored.push_back(output.file);
  }
  if (Status written = write_record(wu_name, "MANIFEST", manifest); !written.ok()) {
    return give_up(written.error());  // an earlier run's MANIFEST, if any, still holds
  }
  // A copy's names must outlive a power cut once DONE commits, since upload/ (another file
  // system, its own journal) then loses its copy: the directory and its entry synced. (A
  // link needs nothing: one file system's journal keeps the link before any later unlink.)
  if (copied_any) {
    if (Status synced = sync_directory(wu_name, at); !synced.ok()) return make_error(synced.error());
    if (::fsync(at) != 0) return make_error("cannot sync " + dir_ + ": " + std::strerror(errno));
  }
  return stored;
}

Status ResultsStore::store_error(const std::string& wu_name, int error_mask, const std::string& reason) {
  bool existed = false;
  if (Status made = make_workunit_directory(wu_name, existed); !made.ok()) return made;
  if (existed) remove_unchecked_outputs(workunit_store_dir(dir_, wu_name));
  return write_record(wu_name, "ERROR", "error_mask " + std::to_string(error_mask) + "\n" + reason + "\n");
}

namespace {

// The stored files of the workunit directory `dir` (all but MANIFEST, ERROR and hidden
// names), by name, each with its size and md5.
Result<std::vector<ArchivedOutput>> manifest_from_files(const std::string& dir) {
  std::vector<ArchivedOutput> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(".") || name == "MANIFEST" || name == "ERROR" || !it->is_regular_file(ec)) continue;
    auto md5 = md5_file_hex(it->path().string());
    if (!md5.ok()) return make_error(md5.error());
    files.push_back(ArchivedOutput{name, static_cast<int64_t>(it->file_size(ec)), *md5});
  }
  if (ec) return make_error("cannot list " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return files;
}

}  // namespace

Result<std::vector<ArchivedOutput>> read_manifest(const std::string& store_dir, const std::string& wu_name) {
  const std::string dir = workunit_store_dir(store_dir, wu_name);
  auto text = read_text_file(dir + "/MANIFEST");
  if (!text.ok()) return make_error(text.error());
  if (text->empty()) return manifest_from_files(dir);
  std::vector<ArchivedOutput> files;
  std::istringstream in(*text);
  ArchivedOutput file;
  while (in >> file.name >> file.size >> file.md5) files.push_back(file);
  return files;
}

}  // namespace tharsis
