// Implementation of daemons/assimilator/lib/results_store.h.
#include "daemons/assimilator/lib/results_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "lib/fd_closer.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

namespace fs = std::filesystem;

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

// Copies the open file `from` (from its start) to dst through dst.tmp + fsync + rename:
// dst is either absent, or complete.
Status copy_atomically(int from, const std::string& src, const std::string& dst) {
  if (::lseek(from, 0, SEEK_SET) != 0) return make_error("cannot read " + src + ": " + std::strerror(errno));
  std::string tmp = dst + ".tmp";
  OwnedFd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
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
  if (failure.empty() && ::rename(tmp.c_str(), dst.c_str()) != 0) {
    failure = "rename to " + dst + " failed: " + std::strerror(errno);
  }
  if (!failure.empty()) {
    ::unlink(tmp.c_str());
    return make_error(failure);
  }
  return Status::success();
}

// Puts the checked output at `dst` (absent, or left by an earlier run): a link to the
// inode it is open on, through /proc/self/fd, so no swap of its upload/ name since the
// check can reach the store. Where that link is refused (no /proc), by its path, kept
// only if the name still leads to the inode checked; on another file system, a copy of
// the open file, checked again (its bytes could have changed since): `copied` says so. A
// `dst` already there is replaced atomically, through a hidden name.
Status place_output(const CheckedOutput& output, const std::string& dst, const std::string& hidden,
                    bool& copied) {
  const std::string by_fd = "/proc/self/fd/" + std::to_string(output.fd.get());
  if (::linkat(AT_FDCWD, by_fd.c_str(), AT_FDCWD, dst.c_str(), AT_SYMLINK_FOLLOW) == 0)
    return Status::success();
  int error = errno;
  if (error == EEXIST) {  // a re-run after a kill: replace it, whatever it is
    ::unlink(hidden.c_str());
    if (::linkat(AT_FDCWD, by_fd.c_str(), AT_FDCWD, hidden.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      if (::rename(hidden.c_str(), dst.c_str()) == 0) return Status::success();
      error = errno;
      ::unlink(hidden.c_str());
      return make_error("cannot rename " + hidden + ": " + std::strerror(error));
    }
    error = errno;
  }
  struct stat checked {};
  if (::fstat(output.fd.get(), &checked) != 0)
    return make_error("cannot stat " + output.path + ": " + std::strerror(errno));
  if (error != EXDEV) {
    ::unlink(hidden.c_str());
    if (::link(output.path.c_str(), hidden.c_str()) == 0) {
      struct stat placed {};
      if (::stat(hidden.c_str(), &placed) == 0 && same_file(placed, checked) &&
          ::rename(hidden.c_str(), dst.c_str()) == 0) {
        return Status::success();
      }
      ::unlink(hidden.c_str());
      return make_error(output.path + " changed since its check: not stored");
    }
    error = errno;
    if (error == ENOENT) return make_error("cannot link output " + output.path + ": " + std::strerror(error));
  }
  copied = true;
  if (Status copy = copy_atomically(output.fd.get(), output.path, hidden); !copy.ok()) return copy;
  ReportedOutput expected{output.file.name, output.file.size, output.file.md5};
  OutputVerdict verdict = verify_output_file(hidden, output.file.name, &expected);
  if (verdict.error_number != 0 || verdict.match != OutputMatch::Match) {
    ::unlink(hidden.c_str());
    return make_error("not stored: " + output.path + " changed while copied: " + verdict.message);
  }
  if (::rename(hidden.c_str(), dst.c_str()) != 0) {
    error = errno;
    ::unlink(hidden.c_str());
    return make_error("cannot rename " + hidden + ": " + std::strerror(error));
  }
  return Status::success();
}

// Makes the names given in `dir` durable (the entries, not the files' data).
Status sync_directory(const std::string& dir) {
  OwnedFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd || ::fsync(fd.get()) != 0) return make_error("cannot sync " + dir + ": " + std::strerror(errno));
  return Status::success();
}

// Hidden names a killed earlier run left (".<name>.incoming", and its copies' ".tmp"):
// never left beside the stored files.
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

Result<std::vector<ArchivedOutput>> store_canonical_outputs(const std::string& store_dir,
                                                            const std::string& wu_name,
                                                            const std::vector<CheckedOutput>& outputs) {
  std::string dir = workunit_store_dir(store_dir, wu_name);
  // One mkdir in the common case (a new directory, with nothing of an earlier run to
  // clear out): making inodes is most of the assimilator's CPU (docs/benchmarks.md).
  bool dir_existed = false;
  if (::mkdir(dir.c_str(), 0777) != 0) {
    if (errno == EEXIST) {
      dir_existed = true;
    } else {  // e.g. the store itself is not there yet
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (ec) return make_error("cannot create " + dir + ": " + ec.message());
    }
  }
  if (dir_existed) remove_unchecked_outputs(dir);
  std::vector<std::string> placed;
  auto give_up = [&](const std::string& why) -> Result<std::vector<ArchivedOutput>> {
    for (const auto& path : placed) ::unlink(path.c_str());
    if (!dir_existed) ::rmdir(dir.c_str());  // only if empty
    return make_error(why);
  };
  std::vector<ArchivedOutput> stored;
  std::string manifest;  // a string, not a stream: no locale work per workunit
  bool copied_any = false;
  for (const auto& output : outputs) {
    if (!output.fd) return give_up(output.path + ": not checked, not stored");
    const std::string dst = dir + "/" + output.file.name;
    // A name an earlier run gave is replaced atomically, never removed on failure: its
    // MANIFEST may be there (a kill after it, before the DONE commit).
    struct stat earlier {};
    const bool had_name = dir_existed && ::lstat(dst.c_str(), &earlier) == 0;
    if (Status put = place_output(output, dst, dir + "/." + output.file.name + ".incoming", copied_any);
        !put.ok()) {
      return give_up(put.error());
    }
    if (!had_name) placed.push_back(dst);
    manifest.append(output.file.name).append(" ").append(std::to_string(output.file.size));
    manifest.append(" ").append(output.file.md5).append("\n");
    stored.push_back(output.file);
  }
  if (Status written = write_text_file(dir + "/MANIFEST", manifest); !written.ok()) {
    return give_up(written.error());  // an earlier run's MANIFEST, if any, still holds
  }
  // A copy's names must outlive a power cut once DONE commits, since upload/ (another file
  // system, its own journal) then loses its copy: the directory and its entry synced. (A
  // link needs nothing: one file system's journal keeps the link before any later unlink.)
  if (copied_any) {
    if (Status synced = sync_directory(dir); !synced.ok()) return make_error(synced.error());
    if (Status synced = sync_directory(store_dir); !synced.ok()) return make_error(synced.error());
  }
  return stored;
}

Status store_workunit_error(const std::string& store_dir, const std::string& wu_name, int error_mask,
                            const std::string& reason) {
  std::string dir = workunit_store_dir(store_dir, wu_name);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("cannot create " + dir + ": " + ec.message());
  remove_unchecked_outputs(dir);
  return write_text_file(dir + "/ERROR", "error_mask " + std::to_string(error_mask) + "\n" + reason + "\n");
}

Result<std::vector<ArchivedOutput>> read_manifest(const std::string& store_dir, const std::string& wu_name) {
  auto text = read_text_file(workunit_store_dir(store_dir, wu_name) + "/MANIFEST");
  if (!text.ok()) return make_error(text.error());
  std::vector<ArchivedOutput> files;
  std::istringstream in(*text);
  ArchivedOutput file;
  while (in >> file.name >> file.size >> file.md5) files.push_back(file);
  return files;
}

}  // namespace tharsis
