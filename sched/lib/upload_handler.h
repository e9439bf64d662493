// The file upload handler (docs/protocol.md, docs/security.md): answers BOINC's <data_server_request>s,
// reading the request as a stream (sched/lib/cgi_server.h) so that memory stays bounded whatever the file
// size, and a refused upload costs no more than its header.
//  - get_file_size: how many bytes of the file the server already has (0 if none), so an
//    interrupted upload resumes at that offset (no database needed);
//  - file_upload: the header (up to <data>, at most UploadLimits::max_header_bytes) is read
//    and checked before a byte of the file is: a safe name, the upload certificate
//    (check_upload_certificate: signed by the project's upload key over name and
//    max_nbytes, nbytes within max_nbytes), nbytes within the project's max_upload_size,
//    no more data than declared, and the rule of sched/lib/upload_rules.h (an output of
//    an existing result that still takes output; a complete file is never rewritten, a
//    same-content repeat is acknowledged). Then the bytes are streamed in bounded buffers
//    to <name>.partial in the file's fan-out directory, from the offset the client gives
//    (which may not be past what is stored). When the file is complete and its md5
//    matches (if given), it is linked into place without replacing anything, so a reader
//    never sees half a file and a complete file never changes. One upload of a file at a
//    time (a lock on the .partial); a concurrent one gets a transient error.
// A database failure is a transient error (the client retries later), never a crash.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "db/upload_store.h"
#include "lib/config/project_config.h"
#include "lib/crypto/rsa_key.h"
#include "lib/protocol/upload_protocol.h"
#include "sched/lib/cgi_server.h"
#include "sched/lib/upload_rules.h"

namespace tharsis {

// Finds the result named `result_name`: nullopt when there is none. May throw (the
// database is down): the upload then gets a transient error.
using OutputOwnerLookup = std::function<std::optional<OutputOwner>(const std::string& result_name)>;

// The handler's view of a result row (its output names read from xml_doc_in).
OutputOwner output_owner_of(const UploadTargetRow& row);

// Bytes of a request the handler reads before the file's data at most: the header limit
// plus one read buffer.
inline constexpr size_t kUploadReadBufferBytes = size_t{64} << 10;

DataServerReply handle_upload_request(BodyReader& body, const ProjectConfig& config,
                                      const RsaKey& upload_public_key, const OutputOwnerLookup& lookup);

}  // namespace tharsis
