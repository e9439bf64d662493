// Fuzz target: the upload protocol header as the file upload handler reads it from any
// client (parse_data_server_request). Contract checked: a refusal is an error reply
// (transient or permanent) with a message; an accepted request names a safe file, and an
// upload has 0 <= offset <= nbytes and its data starting right after "<data>\n" inside the
// input; the header our client renders for the same request parses back to it.
#include "fuzz/fuzz_check.h"
#include "lib/protocol/upload_protocol.h"
#include "lib/protocol/xml_text.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fuzz::as_text(data, size);
  const ParsedDataServerRequest parsed = parse_data_server_request(input);
  if (!parsed.ok()) {
    FUZZ_CHECK(parsed.error.status != UploadStatus::Success, "a refusal with status 0");
    FUZZ_CHECK(!parsed.error.message.empty(), "a refusal without a message");
    return 0;
  }
  const DataServerRequest& request = *parsed.request;
  FUZZ_CHECK(is_safe_file_name(request.file_name), "unsafe name accepted: " + request.file_name);

  std::string rendered;
  if (request.kind == DataServerRequest::Kind::GetFileSize) {
    rendered = render_get_file_size_request(request.client, request.file_name);
  } else {
    FUZZ_CHECK(request.nbytes >= 0, "negative nbytes");
    FUZZ_CHECK(request.offset >= 0 && request.offset <= request.nbytes, "offset outside 0..nbytes");
    FUZZ_CHECK(request.data_start >= 1 && request.data_start <= input.size(), "data_start outside the input");
    FUZZ_CHECK(input[request.data_start - 1] == '\n', "data does not start after a newline");
    FUZZ_CHECK(input.substr(0, request.data_start).find("<data>") != std::string_view::npos,
               "no <data> before the data");
    // Our client always has the certificate's <max_nbytes> (-1, absent, renders as "-1").
    if (request.max_nbytes < 0) return 0;
    // An md5 with & < > (never a real one: they are hex) grows when escaped, past the
    // field's limit near it; the round trip is asserted for every other md5.
    if (request.md5_cksum.find_first_of("&<>") != std::string::npos) return 0;
    // The renderer puts the signature on lines of its own; near the handler's 4096-byte limit
    // those two newlines tip it over (real certificates are ~260 bytes).
    if (request.xml_signature.size() + 2 > 4096) return 0;
    rendered =
        render_file_upload_header(request.client, request.file_name, request.xml_signature,
                                  request.max_nbytes, request.nbytes, request.md5_cksum, request.offset);
  }
  const ParsedDataServerRequest again = parse_data_server_request(rendered);
  FUZZ_CHECK(again.ok(), "rendered header refused: " + again.error.message + "\n" + rendered);
  const DataServerRequest& back = *again.request;
  FUZZ_CHECK(back.kind == request.kind, rendered);
  FUZZ_CHECK(back.client == request.client, rendered);
  FUZZ_CHECK(back.file_name == request.file_name, rendered);
  if (request.kind == DataServerRequest::Kind::FileUpload) {
    FUZZ_CHECK(back.nbytes == request.nbytes && back.offset == request.offset, rendered);
    FUZZ_CHECK(back.max_nbytes == request.max_nbytes, rendered);
    FUZZ_CHECK(back.data_start == rendered.size(), rendered);
  }
  return 0;
}
