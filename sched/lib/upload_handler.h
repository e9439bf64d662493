// The file upload handler (DESIGN §5): answers BOINC's <data_server_request>s.
//  - get_file_size: how many bytes of the file the server already has (0 if none), so an
//    interrupted upload resumes at that offset;
//  - file_upload: checked before a byte is written — a safe name, an upload certificate
//    (<xml_signature> over name and max_nbytes) signed with the project's upload key,
//    nbytes within max_nbytes and the project's max_upload_size, offset equal to what is
//    already stored. Bytes go to <name>.partial in the file's fan-out directory; when the
//    file is complete (and its md5 matches, if given) it is renamed into place, so a
//    reader never sees half a file. A complete file uploaded again is accepted unchanged.
#pragma once

#include <string>

#include "lib/crypto/rsa_key.h"
#include "lib/project_config.h"
#include "lib/protocol/upload_protocol.h"

namespace tharsis {

DataServerReply handle_upload_request(const std::string& body, const ProjectConfig& config,
                                      const RsaKey& upload_public_key);

}  // namespace tharsis
