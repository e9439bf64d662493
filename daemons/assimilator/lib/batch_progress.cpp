// Implementation of daemons/assimilator/lib/batch_progress.h.
#include "daemons/assimilator/lib/batch_progress.h"

#include "db/batch_store.h"

namespace tharsis {

std::map<int64_t, BatchCounts> batch_counts(const std::vector<WorkunitRow>& settled) {
  std::map<int64_t, BatchCounts> counts;
  for (const WorkunitRow& wu : settled) {
    if (wu.batch == 0) continue;
    BatchCounts& c = counts[wu.batch];
    if (wu.canonical_resultid != 0 && wu.error_mask == 0) {
      ++c.done;
      c.credit += wu.canonical_credit;
    } else {
      ++c.errors;
    }
  }
  return counts;
}

void BatchProgress::note(const WorkunitRow& wu) {
  if (wu.batch != 0) settled_[wu.id] = wu;
}

void BatchProgress::forget(int64_t wu_id) { settled_.erase(wu_id); }

void BatchProgress::flush(Database& db, const std::vector<int64_t>& committing, int64_t now) {
  std::vector<WorkunitRow> settled;
  for (int64_t id : committing) {
    auto found = settled_.find(id);
    if (found != settled_.end()) settled.push_back(found->second);
  }
  settled_.clear();
  for (const auto& [batch_id, c] : batch_counts(settled)) {
    add_batch_progress(db, batch_id, c.done, c.errors, c.credit, now);
  }
}

}  // namespace tharsis
