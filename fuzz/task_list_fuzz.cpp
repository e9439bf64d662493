// Fuzz target: the task list of a clustered job (parse_task_list), read by the task app on
// a volunteer's machine and by the server's checks. Contract checked: errors are values
// with a message; ids are positive and distinct, payloads one line; render_task_list of the
// tasks parses back to them.
#include <set>

#include "fuzz/fuzz_check.h"
#include "lib/recluster/task_io.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto tasks = parse_task_list(std::string(fuzz::as_text(data, size)));
  if (!tasks.ok()) {
    FUZZ_CHECK(!tasks.error().empty(), "an error without a message");
    return 0;
  }
  std::set<int64_t> ids;
  for (const auto& task : *tasks) {
    FUZZ_CHECK(task.id > 0, "non-positive id");
    FUZZ_CHECK(ids.insert(task.id).second, "repeated id");
    FUZZ_CHECK(task.payload.find_first_of("\r\n") == std::string::npos, "payload is not one line");
  }
  auto again = parse_task_list(render_task_list(*tasks));
  FUZZ_CHECK(again.ok(), "rendered list does not parse: " + again.error());
  FUZZ_CHECK(again->size() == tasks->size(), "task count changed");
  for (size_t i = 0; i < tasks->size(); ++i) {
    FUZZ_CHECK((*again)[i].id == (*tasks)[i].id && (*again)[i].payload == (*tasks)[i].payload,
               "task changed");
  }
  return 0;
}
