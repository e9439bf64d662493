// Fuzz target: the upload handler's reply as tharsis-client reads it
// (parse_data_server_reply, for both the size query and an upload). Contract checked: it
// never fails (a reply without <status> is transient), the status is one of the three, and
// a reply rendered by our handler (render_data_server_reply) reads back the same.
#include <cmath>

#include "fuzz/fuzz_check.h"
#include "lib/protocol/upload_protocol.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const DataServerReply reply = parse_data_server_reply(fuzz::as_text(data, size));
  const int status = static_cast<int>(reply.status);
  FUZZ_CHECK(status == 0 || status == 1 || status == -1, "status " + std::to_string(status));
  if (reply.file_size) FUZZ_CHECK(std::isfinite(*reply.file_size), "file_size is not finite");

  // What our handler writes must read back unchanged (sizes are whole, messages escaped).
  DataServerReply sent = reply;
  if (sent.file_size) sent.file_size = std::floor(*sent.file_size);
  const std::string rendered = render_data_server_reply(sent);
  const DataServerReply back = parse_data_server_reply(rendered);
  FUZZ_CHECK(back.status == sent.status, rendered);
  FUZZ_CHECK(back.file_size == sent.file_size, rendered);
  if (!fuzz::has_unrenderable_xml_text(sent.message)) FUZZ_CHECK(back.message == sent.message, rendered);
  return 0;
}
