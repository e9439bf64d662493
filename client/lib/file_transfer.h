// Moving one file between the client and the project: download an input or app file
// (any of its URLs, md5 and size checked, executables' code signature checked with the
// project's key, then renamed into place) and upload an output to the file upload
// handler with its upload certificate (resuming at the size the handler already has).
// Each call is one attempt; the caller keeps the retry and back-off bookkeeping.
#pragma once

#include <string>

#include "client/lib/client_state.h"
#include "client/lib/http_session.h"

namespace tharsis {

enum class TransferOutcome { Done, Retry, GiveUp };

struct TransferResult {
  TransferOutcome outcome = TransferOutcome::Done;
  std::string message;  // why it did not work
};

// Downloads `file` to `path`. Retry: transport errors, short or corrupt bodies (md5 or
// size mismatch). GiveUp: no URL, HTTP 404, an executable without a valid signature
// under `code_sign_key` (BOINC key text), or no key at all for an executable.
TransferResult download_file(HttpSession& http, const ClientFile& file, const std::string& path,
                             const std::string& code_sign_key);

// Uploads the file at `path` (its nbytes and md5 already in `file`). With
// file.upload_started, first asks the handler how much it has and sends the rest.
// GiveUp: the handler's permanent error (status -1, to the size query or the upload), no
// upload URL or certificate.
TransferResult upload_file(HttpSession& http, const ClientFile& file, const std::string& path);

}  // namespace tharsis
