// Fuzz target: the scheduler request as the scheduler reads it from any client
// (parse_scheduler_request, server side). Contract checked: errors are values with a
// message; a parsed request respects every ProtocolLimits bound; rendering it as our client
// does (render_scheduler_request) gives a request that parses back to the same value.
#include <set>

#include "fuzz/fuzz_check.h"
#include "lib/protocol/client_side.h"
#include "lib/protocol/scheduler_request.h"

using namespace tharsis;

namespace {

void check_limits(const SchedulerRequest& r, const ProtocolLimits& limits) {
  FUZZ_CHECK(r.results.size() <= limits.max_results, "too many results");
  FUZZ_CHECK(r.other_results.size() <= limits.max_other_results, "too many other results");
  FUZZ_CHECK(r.in_progress_results.size() <= limits.max_other_results, "too many ip results");
  FUZZ_CHECK(r.held_files.size() <= limits.max_file_infos, "too many held files");
  FUZZ_CHECK(r.alt_platforms.size() <= limits.max_platforms, "too many platforms");
  FUZZ_CHECK(r.authenticator.size() <= limits.max_name_bytes, "authenticator");
  FUZZ_CHECK(r.platform_name.size() <= limits.max_name_bytes, "platform_name");
  FUZZ_CHECK(r.code_sign_key.size() <= limits.max_text_bytes, "code_sign_key");
  std::set<std::string> names;
  for (const auto& result : r.results) {
    FUZZ_CHECK(!result.name.empty() && result.name.size() <= limits.max_name_bytes, result.name);
    FUZZ_CHECK(names.insert(result.name).second, "result reported twice: " + result.name);
    FUZZ_CHECK(result.stderr_out.size() <= limits.max_stderr_bytes, "stderr over the limit");
    FUZZ_CHECK(result.output_files.size() <= limits.max_file_infos, "too many output files");
    for (const auto& file : result.output_files) FUZZ_CHECK(!file.name.empty(), "output file without name");
  }
  for (const auto& other : r.other_results) FUZZ_CHECK(!other.name.empty(), "other_result without name");
  for (const auto& file : r.held_files) FUZZ_CHECK(!file.name.empty(), "held file without name");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  // One input in three meets tight limits, so small inputs reach every limit's branch.
  ProtocolLimits limits;  // the scheduler's defaults
  const bool tight = size % 3 == 0;
  if (tight) {
    limits.max_elements = 60;
    limits.max_depth = 6;
    limits.max_results = 2;
    limits.max_other_results = 2;
    limits.max_file_infos = 2;
    limits.max_platforms = 1;
    limits.max_stderr_bytes = 16;
    limits.truncate_stderr = size % 2 == 0;
    limits.max_name_bytes = 12;
    limits.max_text_bytes = 24;
  }
  auto parsed = parse_scheduler_request(text, limits);
  if (!parsed.ok()) {
    FUZZ_CHECK(!parsed.error().empty(), "an error without a message");
    return 0;
  }
  check_limits(*parsed, limits);
  if (tight) return 0;  // a rendering adds elements the tight limits may not allow

  // Round trip: what we parsed, rendered by our client, must read back unchanged.
  const std::string rendered = render_scheduler_request(*parsed);
  auto again = parse_scheduler_request(rendered, limits);
  FUZZ_CHECK(again.ok(),
             "rendered request does not parse: " + again.error() + "\n" + rendered.substr(0, 2000));
  if (fuzz::has_unrenderable_xml_text(text)) return 0;  // xml_escape drops control characters
  SchedulerRequest expected = *parsed;
  for (auto& result : expected.results) result.stderr_truncated = false;  // already cut to size
  FUZZ_CHECK(*again == expected, "request changed in the round trip:\n" + rendered.substr(0, 2000));
  return 0;
}
