// Implementation of sched/lib/upload_handler.h.
#include "sched/lib/upload_handler.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "lib/crypto/md5.h"
#include "lib/fd_closer.h"
#include "lib/log.h"
#include "lib/sync_directory.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"

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

std::string system_error(const std::string& what) { return what + ": " + std::strerror(errno); }

// Reads the header into `head`, in pieces, until the parser has what it needs (it is
// parsed again as it grows) or the input or the header limit ends. `head` may end with
// the first bytes of the file's data.
ParsedDataServerRequest read_header(BodyReader& body, std::string& head, const UploadLimits& limits) {
  const size_t cap = limits.max_header_bytes + kUploadReadBufferBytes;
  std::vector<char> buffer(kUploadReadBufferBytes);
  while (true) {
    ParsedDataServerRequest parsed = parse_data_server_request(head, limits);
    if (!parsed.input_ended_early || body.at_end() || head.size() >= cap) return parsed;
    size_t n = body.read(buffer.data(), std::min(buffer.size(), cap - head.size()));
    head.append(buffer.data(), n);
  }
}

// The complete file stored under the name, if any (its md5 only when the size matches,
// as nothing else needs it).
std::optional<StoredOutput> complete_file(const std::string& path, int64_t nbytes) {
  int64_t size = size_of(path);
  if (size < 0) return std::nullopt;
  StoredOutput stored{size, ""};
  if (size == nbytes) {
    auto md5 = md5_file_hex(path);
    if (md5.ok()) stored.md5 = *md5;
  }
  return stored;
}

bool write_at(int fd, const char* data, size_t n, int64_t at) {
  for (size_t done = 0; done < n;) {
    ssize_t w = pwrite(fd, data + done, n - done, at + static_cast<int64_t>(done));
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

OutputOwner output_owner_of(const UploadTargetRow& row) {
  OutputOwner owner;
  if (auto files = file_infos_in(row.xml_doc_in); files.ok()) {
    for (const auto& file : *files) owner.output_names.push_back(file.name);
  }
  owner.state = ResultAcceptanceView{row.server_state, row.outcome, row.wu_canonical_resultid,
                                     row.wu_error_mask, row.wu_assimilate_state};
  return owner;
}

DataServerReply handle_upload_request(BodyReader& body, const ProjectConfig& config,
                                      const RsaKey& upload_public_key, const OutputOwnerLookup& lookup) {
  const UploadLimits limits;
  const uint64_t max_body =
      static_cast<uint64_t>(config.max_upload_size) + limits.max_header_bytes + kUploadReadBufferBytes;
  if (body.content_length() && *body.content_length() > max_body) {
    return error(UploadStatus::PermanentError, "upload too large: " + std::to_string(*body.content_length()) +
                                                   " bytes, over the project's limit of " +
                                                   std::to_string(config.max_upload_size) +
                                                   " bytes per file");
  }
  std::string head;
  ParsedDataServerRequest parsed = read_header(body, head, limits);
  if (!parsed.ok()) return error(parsed.error.status, parsed.error.message);
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
  if (Status certified = check_upload_certificate(upload_public_key, req); !certified) {
    return error(UploadStatus::PermanentError, certified.error());
  }
  if (req.nbytes > static_cast<double>(config.max_upload_size)) {
    return error(UploadStatus::PermanentError, "file " + req.file_name +
                                                   " exceeds the project's upload limit of " +
                                                   std::to_string(config.max_upload_size) + " bytes");
  }
  const int64_t nbytes = static_cast<int64_t>(req.nbytes);
  const int64_t offset = static_cast<int64_t>(req.offset);
  std::string_view first_data = std::string_view(head).substr(std::min(req.data_start, head.size()));
  int64_t known_data = static_cast<int64_t>(body.content_length() ? *body.content_length() - req.data_start
                                                                  : first_data.size());
  if (offset + known_data > nbytes) {
    return error(UploadStatus::PermanentError,
                 "more data than the declared " + std::to_string(nbytes) + " bytes");
  }

  std::optional<OutputOwner> owner;
  if (auto result_name = output_result_name(req.file_name)) {
    try {
      owner = lookup(*result_name);
    } catch (const std::exception& e) {
      log_error("upload of ", req.file_name, ": cannot read its result: ", e.what());
      return DataServerReply{UploadStatus::TransientError, std::nullopt,
                             "server database unavailable; try later"};
    }
  }
  UploadDecision decision =
      decide_upload(req.file_name, nbytes, req.md5_cksum, owner, complete_file(path, nbytes));
  if (decision.verdict == UploadVerdict::AcknowledgeRepeat) return DataServerReply{};
  if (decision.verdict == UploadVerdict::Refuse) return error(UploadStatus::PermanentError, decision.reason);

  auto dir_ok = fanout_path_create(config.upload_dir, req.file_name, config.uldl_dir_fanout);
  if (!dir_ok.ok()) return error(UploadStatus::TransientError, "server cannot store the file now");
  // The .partial file, and its lock, for this upload.
  OwnedFd file(open(partial.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (!file) return error(UploadStatus::TransientError, system_error("cannot open upload file"));
  if (flock(file.get(), LOCK_EX | LOCK_NB) != 0) {
    return error(UploadStatus::TransientError,
                 "another upload of " + req.file_name + " is in progress; try later");
  }
  struct stat info {};
  int64_t have = fstat(file.get(), &info) == 0 ? static_cast<int64_t>(info.st_size) : 0;
  if (offset > have) {
    return error(UploadStatus::TransientError, "offset " + std::to_string(offset) + " beyond the " +
                                                   std::to_string(have) +
                                                   " bytes received; ask the size again");
  }
  // A resumed upload overwrites from its offset; the bytes come in bounded pieces.
  if (ftruncate(file.get(), offset) != 0) {
    return error(UploadStatus::TransientError, system_error("truncate failed"));
  }
  int64_t at = offset;
  bool ok = write_at(file.get(), first_data.data(), first_data.size(), at);
  at += static_cast<int64_t>(first_data.size());
  std::vector<char> buffer(kUploadReadBufferBytes);
  while (ok && at <= nbytes) {
    size_t n = body.read(buffer.data(), buffer.size());
    if (n == 0) break;
    if (at + static_cast<int64_t>(n) > nbytes) {  // only without a Content-Length (chunked)
      if (ftruncate(file.get(), offset) != 0) log_warning("cannot truncate ", partial);
      return error(UploadStatus::PermanentError,
                   "more data than the declared " + std::to_string(nbytes) + " bytes");
    }
    ok = write_at(file.get(), buffer.data(), n, at);
    at += static_cast<int64_t>(n);
  }
  ok = ok && fsync(file.get()) == 0;
  if (!ok) return error(UploadStatus::TransientError, system_error("write failed"));
  if (at < nbytes) {
    return error(UploadStatus::TransientError, "upload incomplete: resume at the server's file size");
  }
  if (!req.md5_cksum.empty()) {
    auto md5 = md5_file_hex(partial);
    if (!md5.ok() || !same_md5(*md5, req.md5_cksum)) {
      unlink(partial.c_str());
      return error(UploadStatus::TransientError, "md5 mismatch for " + req.file_name + "; upload again");
    }
  }
  // link() never replaces: if another upload completed the file meanwhile, the rule for a
  // complete file decides.
  if (link(partial.c_str(), path.c_str()) != 0) {
    if (errno != EEXIST) return error(UploadStatus::TransientError, system_error("cannot finish the upload"));
    unlink(partial.c_str());
    UploadDecision late =
        decide_upload(req.file_name, nbytes, req.md5_cksum, owner, complete_file(path, nbytes));
    if (late.verdict == UploadVerdict::AcknowledgeRepeat) return DataServerReply{};
    return error(UploadStatus::PermanentError, late.reason);
  }
  unlink(partial.c_str());
  // The name durable before the client is told it may delete its copy: the fsync above
  // kept the bytes, and a journal commits a new name only seconds later. (The .partial
  // name's removal may be lost to a power cut; the file deleter removes it then.)
  if (Status synced = sync_directory(path.substr(0, path.rfind('/'))); !synced.ok()) {
    return error(UploadStatus::TransientError, synced.error());
  }
  return DataServerReply{};
}

}  // namespace tharsis
