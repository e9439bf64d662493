// Implementation of client/lib/file_transfer.h.
#include "client/lib/file_transfer.h"

#include <sys/stat.h>

#include <cstdio>

#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/crypto/md5.h"
#include "lib/protocol/upload_protocol.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

const ClientVersion kClientVersion{7, 20, 2};

TransferResult retry(std::string message) { return {TransferOutcome::Retry, std::move(message)}; }
TransferResult give_up(std::string message) { return {TransferOutcome::GiveUp, std::move(message)}; }

// Checks a downloaded temp file against its description.
TransferResult verify(const ClientFile& file, const std::string& temp, const std::string& code_sign_key) {
  if (!file.md5_cksum.empty()) {
    auto md5 = md5_file_hex(temp);
    if (!md5.ok()) return retry(md5.error());
    if (*md5 != file.md5_cksum) return retry(file.name + ": md5 " + *md5 + ", expected " + file.md5_cksum);
  }
  if (file.executable) {
    // An executable runs on the volunteer's machine: only with the project's signature.
    if (code_sign_key.empty())
      return give_up(file.name + ": executable, but no code signing key from the project");
    if (file.file_signature.empty()) return give_up(file.name + ": executable without a file_signature");
    auto key = parse_boinc_public_key(code_sign_key, "code_sign_key");
    if (!key.ok()) return give_up(key.error());
    auto verified = verify_file_boinc(*key, temp, file.file_signature);
    if (!verified.ok()) return give_up(file.name + ": " + verified.error());
    if (!*verified) return give_up(file.name + ": code signature does not verify");
  }
  return {};
}

}  // namespace

TransferResult download_file(HttpSession& http, const ClientFile& file, const std::string& path,
                             const std::string& code_sign_key) {
  if (file.download_urls.empty()) return give_up(file.name + ": no download URL");
  std::string temp = path + ".download";
  TransferResult last = retry(file.name + ": not tried");
  for (const auto& url : file.download_urls) {
    HttpReply reply = http.get_to_file(url, temp);
    if (!reply.ok()) {
      last = reply.status == 404 ? give_up(url + ": not found on the server")
                                 : retry(url + ": " + reply.describe());
      continue;
    }
    last = verify(file, temp, code_sign_key);
    if (last.outcome != TransferOutcome::Done) continue;
    if (file.executable) chmod(temp.c_str(), 0755);
    if (std::rename(temp.c_str(), path.c_str()) != 0) return retry("cannot move " + temp + " into place");
    return {};
  }
  std::remove(temp.c_str());
  return last;
}

TransferResult upload_file(HttpSession& http, const ClientFile& file, const std::string& path) {
  if (file.upload_urls.empty()) return give_up(file.name + ": no upload URL");
  if (file.xml_signature.empty()) return give_up(file.name + ": no upload certificate");
  const std::string& url = file.upload_urls.front();
  auto data = read_text_file(path);
  if (!data.ok()) return give_up(data.error());
  double offset = 0;
  if (file.upload_started) {
    HttpReply size_reply = http.post(url, render_get_file_size_request(kClientVersion, file.name));
    if (!size_reply.ok()) return retry("size query: " + size_reply.describe());
    DataServerReply parsed = parse_data_server_reply(size_reply.body);
    if (parsed.status == UploadStatus::PermanentError) {
      return give_up("upload handler refused " + file.name + ": " + parsed.message);
    }
    if (parsed.status != UploadStatus::Success) return retry("size query: " + parsed.message);
    offset = parsed.file_size.value_or(0);
    // Not our bytes (or not a size at all, from a broken handler): start over.
    if (!(offset >= 0) || offset > static_cast<double>(data->size())) offset = 0;
  }
  std::string body = render_file_upload_header(kClientVersion, file.name, file.xml_signature, file.max_nbytes,
                                               static_cast<double>(data->size()), file.md5_cksum, offset) +
                     data->substr(static_cast<size_t>(offset));
  HttpReply reply = http.post(url, body);
  if (!reply.ok()) return retry("upload: " + reply.describe());
  DataServerReply parsed = parse_data_server_reply(reply.body);
  switch (parsed.status) {
    case UploadStatus::Success:
      return {};
    case UploadStatus::TransientError:
      return retry("upload handler: " + parsed.message);
    case UploadStatus::PermanentError:
      return give_up("upload handler refused " + file.name + ": " + parsed.message);
  }
  return retry("upload handler: unknown status");
}

}  // namespace tharsis
