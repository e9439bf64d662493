// The file upload handler's wire protocol (BOINC's <data_server_request> /
// <data_server_reply>, client/file_xfer.cpp and sched/file_upload_handler.cpp):
//  - size query:  <data_server_request> ... <get_file_size>NAME</get_file_size> ...
//  - upload:      <data_server_request> ... <file_upload><file_info><name>NAME</name>
//                 <xml_signature>HEX</xml_signature><max_nbytes>M</max_nbytes></file_info>
//                 <nbytes>N</nbytes><md5_cksum>X</md5_cksum><offset>O</offset><data>\n
//                 followed by the raw bytes O..N-1 of the file. The header is not
//                 well-formed XML (nothing is closed before <data>), so it is scanned tag by
//                 tag, not parsed as a document.
//  - reply:       <data_server_reply><status>S</status>[<file_size>N</file_size>]
//                 [<message>M</message>]</data_server_reply>, S = 0 success, 1 transient
//                 error (the client retries later), -1 permanent error (the client gives
//                 up on the file and the result fails).
// The upload certificate check itself is in lib/crypto/boinc_signature.h
// (upload_certificate_text + verify_block_boinc).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "lib/crypto/rsa_key.h"
#include "lib/protocol/scheduler_request.h"
#include "lib/result.h"

namespace tharsis {

inline constexpr size_t kMaxUploadFileNameBytes = 255;

// A name we accept for a file in upload/ or download/: 1..255 bytes, no '/', no '\\',
// no "..", not starting with '.', no control characters or DEL, no '%' (the client
// rejects it too), no '<', '>' or '&' (it must print into XML unescaped by the client).
bool is_safe_file_name(std::string_view name);
// The reason `name` is unsafe, or "" when it is safe.
std::string unsafe_file_name_reason(std::string_view name);

enum class UploadStatus : int { Success = 0, TransientError = 1, PermanentError = -1 };

struct DataServerReply {
  UploadStatus status = UploadStatus::Success;
  std::optional<double> file_size;  // for a size query
  std::string message;              // errors only
  bool operator==(const DataServerReply&) const = default;
};

struct DataServerRequest {
  enum class Kind { GetFileSize, FileUpload };
  Kind kind = Kind::GetFileSize;
  ClientVersion client;
  std::string file_name;
  // FileUpload only:
  std::string xml_signature;  // raw hex text of the upload certificate
  double max_nbytes = -1;     // -1: absent
  double nbytes = -1;         // total size of the file; -1: absent
  std::string md5_cksum;
  double offset = 0;      // first byte sent
  size_t data_start = 0;  // index in the parsed input where the raw bytes begin
  bool operator==(const DataServerRequest&) const = default;
};

struct UploadLimits {
  size_t max_header_bytes = 16384;  // <data> must appear within this many bytes
};

// Outcome of parsing: a request, or the error reply to send (status says transient or
// permanent: a cut-off or empty header is transient, as a retry may succeed; anything the
// client would send again unchanged is permanent).
struct ParsedDataServerRequest {
  std::optional<DataServerRequest> request;
  DataServerReply error;
  // The input ended before </data_server_request> or <data> and its newline: more of the
  // body may complete the header (a reader that has more should parse again with it).
  bool input_ended_early = false;
  bool ok() const { return request.has_value(); }
};

// Parses the start of a POST body (at least the header; the upload's raw bytes may follow
// and are not read). Checks the file name with is_safe_file_name, that an upload has
// <name>, <nbytes> >= 0, 0 <= <offset> <= <nbytes>, and <data>. Signature and size limit
// are the handler's to check. A header read in pieces is parsed again as it grows, until
// the result is not input_ended_early (or the input is over).
ParsedDataServerRequest parse_data_server_request(std::string_view input, const UploadLimits& limits = {});

// The upload certificate check of a FileUpload request, as BOINC's handler does it: a
// signature and <max_nbytes> must be present, the signature (made with upload_private)
// must verify with `upload_public` over "<name>NAME</name><max_nbytes>M</max_nbytes>",
// and <nbytes> may not exceed max_nbytes. Every failure is a permanent error for the
// client; the message says which check failed.
Status check_upload_certificate(const RsaKey& upload_public, const DataServerRequest& request);

// "<data_server_reply>\n    <status>S</status>\n ... </data_server_reply>\n" (the CGI
// layer writes the Content-type header).
std::string render_data_server_reply(const DataServerReply& reply);

// Client side: the request header texts, byte for byte in the 7.20 client's layout.
std::string render_get_file_size_request(const ClientVersion& client, std::string_view file_name);
std::string render_file_upload_header(const ClientVersion& client, std::string_view file_name,
                                      std::string_view xml_signature, double max_nbytes, double nbytes,
                                      std::string_view md5_cksum, double offset);
// Client side: reads a reply; a reply without <status> counts as transient (as BOINC).
DataServerReply parse_data_server_reply(std::string_view text);

}  // namespace tharsis
