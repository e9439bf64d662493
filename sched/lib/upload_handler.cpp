// Implementation of sched/lib/upload_handler.h.
#include "sched/lib/upload_handler.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lib/crypto/boinc_signature.h"
#include "lib/crypto/md5.h"
#include "lib/fanout.h"
#include "lib/log.h"

namespace tharsis {
namespace {

DataServerReply error(UploadStatus status, std::string message) {
  log_warning("upload refused: ", message);
  return DataServerReply{status, std::nullopt, std::move(message)};
}

int64_t size_of(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 ? static_cast<int64_t>(info.st_size) : -1;
}

}  // namespace

DataServerReply handle_upload_request(const std::string& body, const ProjectConfig& config,
                                      const RsaKey& upload_public_key) {
  ParsedDataServerRequest parsed = parse_data_server_request(body);
  if (!parsed.ok()) return parsed.error;
  const DataServerRequest& req = *parsed.request;
  std::string path = fanout_path(config.upload_dir, req.file_name, config.uldl_dir_fanout);
  std::string partial = path + ".partial";

  if (req.kind == DataServerRequest::Kind::GetFileSize) {
    int64_t complete = size_of(path);
    int64_t started = size_of(partial);
    DataServerReply reply;
    reply.file_size = static_cast<double>(complete >= 0 ? complete : std::max<int64_t>(0, started));
    return reply;
  }

  // The certificate: we (the scheduler) signed this name and size limit.
  auto verified = verify_block_boinc(upload_public_key, upload_certificate_text(req.file_name, req.max_nbytes),
                                     req.xml_signature);
  if (!verified.ok() || !*verified) {
    return error(UploadStatus::PermanentError, "invalid upload certificate for " + req.file_name);
  }
  if (req.nbytes > req.max_nbytes) {
    return error(UploadStatus::PermanentError, "file " + req.file_name + " is " + std::to_string(req.nbytes) +
                                                   " bytes, over its limit of " + std::to_string(req.max_nbytes));
  }
  if (req.nbytes > static_cast<double>(config.max_upload_size)) {
    return error(UploadStatus::PermanentError, "file " + req.file_name + " exceeds the project's upload limit");
  }
  int64_t nbytes = static_cast<int64_t>(req.nbytes);
  int64_t offset = static_cast<int64_t>(req.offset);
  std::string_view data(body);
  data.remove_prefix(std::min(req.data_start, body.size()));
  if (offset + static_cast<int64_t>(data.size()) > nbytes) {
    return error(UploadStatus::PermanentError, "more data than the declared " + std::to_string(nbytes) + " bytes");
  }
  if (size_of(path) == nbytes) return DataServerReply{};  // already complete: a harmless repeat

  auto dir_ok = fanout_path_create(config.upload_dir, req.file_name, config.uldl_dir_fanout);
  if (!dir_ok.ok()) return error(UploadStatus::TransientError, "server cannot store the file now");
  int64_t have = std::max<int64_t>(0, size_of(partial));
  if (offset > have) {
    return error(UploadStatus::TransientError, "offset " + std::to_string(offset) + " beyond the " +
                                                   std::to_string(have) + " bytes received; ask the size again");
  }
  int fd = open(partial.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return error(UploadStatus::TransientError, "cannot open upload file: " + std::string(std::strerror(errno)));
  bool ok = ftruncate(fd, offset) == 0;  // a resumed upload overwrites from its offset
  for (size_t done = 0; ok && done < data.size();) {
    ssize_t w = pwrite(fd, data.data() + done, data.size() - done, offset + static_cast<int64_t>(done));
    if (w <= 0) ok = false;
    else done += static_cast<size_t>(w);
  }
  ok = ok && fsync(fd) == 0;
  close(fd);
  if (!ok) return error(UploadStatus::TransientError, "write failed: " + std::string(std::strerror(errno)));
  if (offset + static_cast<int64_t>(data.size()) < nbytes) {
    return error(UploadStatus::TransientError, "upload incomplete: resume at the server's file size");
  }
  if (!req.md5_cksum.empty()) {
    auto md5 = md5_file_hex(partial);
    if (!md5.ok() || *md5 != req.md5_cksum) {
      unlink(partial.c_str());
      return error(UploadStatus::TransientError, "md5 mismatch for " + req.file_name + "; upload again");
    }
  }
  if (rename(partial.c_str(), path.c_str()) != 0) {
    return error(UploadStatus::TransientError, "cannot finish the upload: " + std::string(std::strerror(errno)));
  }
  return DataServerReply{};
}

}  // namespace tharsis
