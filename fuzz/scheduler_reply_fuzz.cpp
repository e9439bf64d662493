// Fuzz target: a scheduler reply as tharsis-client reads it (parse_scheduler_reply): a
// hostile or broken project must not crash a volunteer. Contract checked: errors are values
// with a message; a parsed reply renders (render_scheduler_reply, what our scheduler
// writes) to a document that parses again, and render-then-parse is a fixed point after one
// round (rendering normalises: defaults, hex-only signatures, flags); every name the client
// makes a path of is a safe file name.
#include "fuzz/fuzz_check.h"
#include "lib/protocol/client_side.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/protocol/upload_protocol.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  auto parsed = parse_scheduler_reply(text);
  if (!parsed.ok()) {
    FUZZ_CHECK(!parsed.error().empty(), "an error without a message");
    return 0;
  }
  // Every name the client makes a path of is safe (no "..", no '/', not hidden, ...).
  const SchedulerReply& r = *parsed;
  auto safe = [](const std::string& name) { return name.empty() || is_safe_file_name(name); };
  for (const auto& file : r.file_infos) FUZZ_CHECK(safe(file.name), file.name);
  for (const auto& name : r.file_deletes) FUZZ_CHECK(is_safe_file_name(name), name);
  auto refs_safe = [&](const std::vector<ReplyFileRef>& refs) {
    for (const auto& ref : refs)
      FUZZ_CHECK(safe(ref.file_name) && safe(ref.open_name), ref.file_name + " " + ref.open_name);
  };
  for (const auto& version : r.app_versions) refs_safe(version.file_refs);
  for (const auto& wu : r.workunits) refs_safe(wu.file_refs);
  for (const auto& result : r.results) {
    FUZZ_CHECK(safe(result.name), result.name);
    refs_safe(result.file_refs);
  }

  const std::string rendered = render_scheduler_reply(*parsed);
  auto again = parse_scheduler_reply(rendered);
  FUZZ_CHECK(again.ok(), "rendered reply does not parse: " + again.error() + "\n" + rendered.substr(0, 2000));
  // A dropped control character can expose blanks that the next parse trims: stability is
  // only asserted for text xml_escape keeps whole.
  if (fuzz::has_unrenderable_xml_text(text)) return 0;
  const std::string rendered_again = render_scheduler_reply(*again);
  auto third = parse_scheduler_reply(rendered_again);
  FUZZ_CHECK(third.ok(), "re-rendered reply does not parse: " + third.error());
  FUZZ_CHECK(*third == *again, "render/parse is not stable:\n" + rendered.substr(0, 2000));
  FUZZ_CHECK(rendered_again == rendered,
             "rendering is not stable:\n" + fuzz::first_difference(rendered, rendered_again));
  return 0;
}
