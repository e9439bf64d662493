// Fuzz target: the status pages' QUERY_STRING (QueryParams::parse), which anyone on the web
// sends. Contract checked: nothing throws; errors are values with a message; accepted
// names are [A-Za-z0-9_.-]{1,64}, values hold no control characters, and the typed
// getters answer every parameter without throwing.
#include "fuzz/fuzz_check.h"
#include "lib/web/cgi_request.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto params = QueryParams::parse(fuzz::as_text(data, size));
  if (!params.ok()) {
    FUZZ_CHECK(!params.error().empty(), "an error without a message");
    return 0;
  }
  FUZZ_CHECK(size <= kMaxQueryStringLength, "longer than the limit");
  for (const auto& [name, value] : params->all()) {
    FUZZ_CHECK(!name.empty() && name.size() <= 64, name);
    for (char c : name) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '.' || c == '-';
      FUZZ_CHECK(ok, "name character outside the alphabet: " + name);
    }
    for (char c : value) {
      auto byte = static_cast<unsigned char>(c);
      FUZZ_CHECK(byte >= 0x20 && byte != 0x7f, "control character in a value");
    }
    FUZZ_CHECK(params->has(name), name);
    FUZZ_CHECK(params->get_string(name).ok(), name);
    (void)params->get_int(name, INT64_MIN, INT64_MAX);
    (void)params->get_int_or(name, 0, -1000, 1000);
    (void)params->get_choice_or(name, {"html", "json", "prometheus"}, "html");
  }
  return 0;
}
