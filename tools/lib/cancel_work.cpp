// Implementation of tools/lib/cancel_work.h.
#include "tools/lib/cancel_work.h"

#include "db/states.h"
#include "db/workunit_store.h"

namespace tharsis {

Result<CancelOutcome> cancel_workunits(Database& db, const std::vector<std::string>& names, int64_t now) {
  std::string missing;
  CancelOutcome outcome = db.transaction([&](Database& d) {
    CancelOutcome counts;
    missing.clear();
    std::vector<WorkunitRow> locked;
    for (const auto& name : names) {  // lock all first: a missing name changes nothing
      auto found = fetch_workunit_by_name(d, name);
      auto wu = found ? fetch_workunit(d, found->id, /*for_update=*/true) : std::nullopt;
      if (!wu) {
        missing = name;
        return counts;
      }
      locked.push_back(*wu);
    }
    for (WorkunitRow& wu : locked) {
      if (wu.error_mask & kWuErrorCancelled) {
        ++counts.already_cancelled;
      } else if (wu.assimilate_state == AssimilateState::Done) {
        ++counts.already_done;
      } else {
        wu.error_mask |= kWuErrorCancelled;
        wu.transition_time = now;
        update_workunit(d, wu);
        ++counts.cancelled;
      }
    }
    return counts;
  });
  if (!missing.empty()) return make_error("cancel: no workunit named '" + missing + "'; nothing cancelled");
  return outcome;
}

}  // namespace tharsis
