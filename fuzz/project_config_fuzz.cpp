// Fuzz target: config.xml (parse_project_config), which every program of a project reads
// at start; an admin's typo must be a one-line error, never a crash. Contract checked:
// errors are one line starting with the source name; a parsed config renders
// (render_project_config, what make_project writes) to text that parses to a config that
// renders the same.
#include "fuzz/fuzz_check.h"
#include "lib/config/project_config.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto config = parse_project_config(fuzz::as_text(data, size), "config.xml");
  if (!config.ok()) {
    FUZZ_CHECK(config.error().rfind("config.xml", 0) == 0,
               "error does not start with the source: " + config.error());
    return 0;
  }
  const std::string rendered = render_project_config(*config);
  auto again = parse_project_config(rendered, "rendered");
  FUZZ_CHECK(again.ok(), "rendered config does not parse: " + again.error() + "\n" + rendered);
  FUZZ_CHECK(render_project_config(*again) == rendered, "config changed in the round trip:\n" + rendered);
  return 0;
}
