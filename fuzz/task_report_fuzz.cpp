// Fuzz target: the per-task report of a clustered job (parse_task_report), the output a
// volunteer uploads and the assimilator reads. Contract checked: errors are values with a
// message; ids are positive, texts one line; render_task_report parses back to the same
// reports, and check_report_matches accepts the report against its own ids.
#include "fuzz/fuzz_check.h"
#include "lib/recluster/task_io.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto reports = parse_task_report(std::string(fuzz::as_text(data, size)));
  if (!reports.ok()) {
    FUZZ_CHECK(!reports.error().empty(), "an error without a message");
    return 0;
  }
  std::vector<int64_t> ids;
  for (const auto& report : *reports) {
    FUZZ_CHECK(report.id > 0, "non-positive id");
    FUZZ_CHECK(report.text.find_first_of("\r\n") == std::string::npos, "text is not one line");
    ids.push_back(report.id);
  }
  FUZZ_CHECK(check_report_matches(ids, *reports).ok(), "report does not match its own ids");
  auto again = parse_task_report(render_task_report(*reports));
  FUZZ_CHECK(again.ok(), "rendered report does not parse: " + again.error());
  FUZZ_CHECK(again->size() == reports->size(), "report count changed");
  for (size_t i = 0; i < reports->size(); ++i) {
    const auto& a = (*again)[i];
    const auto& b = (*reports)[i];
    FUZZ_CHECK(a.id == b.id && a.ok == b.ok && a.text == b.text, "report changed");
  }
  return 0;
}
