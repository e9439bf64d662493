// Implementation of tests/support/workunit_batch.h.
#include "tests/support/workunit_batch.h"

#include <string>

#include "db/workunit_store.h"

namespace tharsis::testing {

std::vector<WorkunitRow> insert_planned_workunits(Database& db, int n, int64_t transition_time) {
  std::vector<WorkunitRow> out;
  for (int i = 1; i <= n; ++i) {
    WorkunitRow wu;
    wu.appid = 1;
    wu.name = "wu" + std::to_string(i);
    wu.transition_time = transition_time;
    wu.id = insert_workunit(db, wu);
    out.push_back(wu);
  }
  return out;
}

}  // namespace tharsis::testing
