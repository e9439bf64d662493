// Implementation of daemons/assimilator/lib/results_store.h.
#include "daemons/assimilator/lib/results_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "lib/text_file.h"

namespace tharsis {
namespace {

namespace fs = std::filesystem;

// Copies src to dst through dst.tmp + fsync + rename: dst is either absent, or complete.
Status copy_atomically(const std::string& src, const std::string& dst) {
  int in = open(src.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return make_error("cannot open output " + src + ": " + std::strerror(errno));
  std::string tmp = dst + ".tmp";
  int out = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    close(in);
    return make_error("cannot create " + tmp + ": " + std::strerror(errno));
  }
  char buffer[1 << 16];
  ssize_t n = 0;
  std::string failure;
  while ((n = read(in, buffer, sizeof buffer)) > 0) {
    for (ssize_t done = 0; done < n;) {
      ssize_t w = write(out, buffer + done, static_cast<size_t>(n - done));
      if (w < 0) {
        failure = "write to " + tmp + " failed: " + std::strerror(errno);
        break;
      }
      done += w;
    }
    if (!failure.empty()) break;
  }
  if (n < 0) failure = "read of " + src + " failed: " + std::strerror(errno);
  if (failure.empty() && fsync(out) != 0) failure = "fsync of " + tmp + " failed: " + std::strerror(errno);
  close(in);
  close(out);
  if (failure.empty() && rename(tmp.c_str(), dst.c_str()) != 0) {
    failure = "rename to " + dst + " failed: " + std::strerror(errno);
  }
  if (!failure.empty()) {
    unlink(tmp.c_str());
    return make_error(failure);
  }
  return Status::success();
}

// Puts src's content at dst. A hard link when both are on one filesystem: no data is
// copied and nothing needs syncing beyond what the upload handler already made durable;
// otherwise (EXDEV, or a file system without links) a full atomic copy.
Status place_output(const std::string& src, const std::string& dst) {
  if (::link(src.c_str(), dst.c_str()) == 0) return Status::success();
  if (errno == EEXIST) {
    // A re-run after a kill: the earlier pass placed it (a link to the same inode, or a
    // complete copy thanks to the rename); the caller re-checks size and md5 anyway.
    struct stat a {
    }, b{};
    if (::stat(src.c_str(), &a) == 0 && ::stat(dst.c_str(), &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev) {
      return Status::success();
    }
    ::unlink(dst.c_str());
    if (::link(src.c_str(), dst.c_str()) == 0) return Status::success();
  }
  if (errno == ENOENT) return make_error("cannot open output " + src + ": " + std::strerror(errno));
  return copy_atomically(src, dst);
}

// Outputs a killed earlier run placed but never checked (hidden ".<name>.incoming"): they
// may be bytes that were later refused, and are never left beside the stored ones.
void remove_unchecked_outputs(const std::string& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 10 && name[0] == '.' && name.ends_with(".incoming")) fs::remove(it->path(), ec);
  }
}

}  // namespace

std::string workunit_store_dir(const std::string& store_dir, const std::string& wu_name) {
  return store_dir + "/" + wu_name;
}

Result<std::vector<ArchivedOutput>> store_canonical_outputs(const std::string& store_dir,
                                                            const std::string& wu_name,
                                                            const std::vector<CanonicalOutput>& outputs) {
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
  // Each output is placed under a hidden name first and checked there: the bytes checked
  // are the bytes kept (a later swap in upload/ cannot reach a placed hard link).
  std::vector<std::string> placed;
  auto give_up = [&](const std::string& why) -> Result<std::vector<ArchivedOutput>> {
    for (const auto& path : placed) ::unlink(path.c_str());
    if (!dir_existed) ::rmdir(dir.c_str());  // only if empty
    return make_error(why);
  };
  std::vector<ArchivedOutput> stored;
  std::ostringstream manifest;
  for (const auto& output : outputs) {
    ArchivedOutput file;
    file.name = fs::path(output.path).filename().string();
    std::string incoming = dir + "/." + file.name + ".incoming";
    if (Status copied = place_output(output.path, incoming); !copied.ok()) return give_up(copied.error());
    placed.push_back(incoming);
    OutputVerdict verdict = verify_output_file(incoming, file.name, &output.reported);
    if (verdict.error_number != 0) return give_up(verdict.message);
    if (verdict.match != OutputMatch::Match) return give_up("not stored: " + verdict.message);
    file.size = verdict.on_disk.size;
    file.md5 = verdict.on_disk.md5;
    manifest << file.name << ' ' << file.size << ' ' << file.md5 << '\n';
    stored.push_back(file);
  }
  for (size_t i = 0; i < stored.size(); ++i) {
    if (::rename(placed[i].c_str(), (dir + "/" + stored[i].name).c_str()) != 0) {
      return give_up("cannot rename " + placed[i] + ": " + std::strerror(errno));
    }
    // A re-run links the same inode the name already has: rename() then leaves both.
    if (dir_existed) ::unlink(placed[i].c_str());
  }
  if (Status written = write_text_file(dir + "/MANIFEST", manifest.str()); !written.ok()) {
    return make_error(written.error());
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
