// Implementation of db/locked_workunits.h.
#include "db/locked_workunits.h"

#include <algorithm>

#include "db/result_store.h"
#include "db/workunit_store.h"

namespace tharsis {

void LockedWorkunits::clear() {
  rows_.clear();
  for (const auto& companion : companions_) companion->clear();
}

void LockedWorkunits::lock(Database& db, const std::vector<int64_t>& wu_ids) {
  clear();
  // The join locks rows in the list's order: ascending ids, so that two daemons locking
  // overlapping batches take them in the same order and cannot deadlock on them.
  std::vector<int64_t> ids = wu_ids;
  std::sort(ids.begin(), ids.end());
  std::map<int64_t, LockedWorkunit> rows;
  for (int64_t id : ids) rows[id];  // a missing workunit stays nullopt: known absent
  for (auto& wu : fetch_workunits(db, ids, /*for_update=*/true)) rows[wu.id].workunit = std::move(wu);
  for (auto& result : fetch_results_of_workunits(db, ids, /*for_update=*/true, text_)) {
    rows[result.workunitid].results.push_back(std::move(result));
  }
  try {
    for (const auto& companion : companions_) companion->lock(db, ids);
  } catch (...) {
    for (const auto& companion : companions_) companion->clear();
    throw;
  }
  rows_ = std::move(rows);
}

LockedWorkunit LockedWorkunits::load(Database& db, int64_t wu_id) {
  auto it = rows_.find(wu_id);
  if (it != rows_.end()) {
    LockedWorkunit out = std::move(it->second);
    rows_.erase(it);
    return out;
  }
  LockedWorkunit out;
  out.workunit = fetch_workunit(db, wu_id, /*for_update=*/true);
  if (out.workunit) out.results = fetch_results_of_workunit(db, wu_id, /*for_update=*/true, text_);
  return out;
}

}  // namespace tharsis
