// Implementation of lib/daemon/batch_commit.h.
#include "lib/daemon/batch_commit.h"

#include <algorithm>
#include <set>
#include <string>

#include "db/stale_row.h"
#include "lib/log.h"

namespace tharsis {
namespace {

// Thrown inside the batch's transaction to roll it back and re-run it without one unit.
struct SkipUnit {
  int64_t id;
};

// Thrown inside a set-based batch's transaction to roll it back and run it unit by unit.
struct WriteUnitByUnit {
  std::string why;
};

}  // namespace

int commit_in_batches(Database& db, const std::vector<int64_t>& ids, int per_commit, const UnitOfWork& unit,
                      const std::function<bool()>& stop, const BatchLock& lock_batch,
                      const BatchFinish& finish_batch) {
  const size_t step = static_cast<size_t>(std::max(per_commit, 1));
  int written = 0;
  for (size_t first = 0; first < ids.size(); first += step) {
    if (first > 0 && stop && stop()) break;
    std::vector<int64_t> batch(ids.begin() + first, ids.begin() + std::min(ids.size(), first + step));
    // Each skip removes one unit, so this ends after at most step + 1 runs.
    while (!batch.empty()) {
      try {
        written += db.transaction([&](Database& d) {
          if (lock_batch) {
            try {
              lock_batch(d, batch);
            } catch (const DbError& e) {
              if (!e.lock_wait_timeout()) throw;
              log_warning(e.what(), "; locking this batch's units one by one");
            }
          }
          int batch_written = 0;
          for (int64_t id : batch) {
            try {
              batch_written += unit(d, id) ? 1 : 0;
            } catch (const StaleRow& e) {
              log_warning(e.what());
              throw SkipUnit{id};
            } catch (const DbError& e) {
              if (!e.lock_wait_timeout()) throw;
              log_warning(e.what(), "; unit ", id, " left for the next pass");
              throw SkipUnit{id};
            }
          }
          if (finish_batch) finish_batch(d, batch);
          return batch_written;
        });
        break;
      } catch (const SkipUnit& skip) {
        batch.erase(std::find(batch.begin(), batch.end(), skip.id));
      }
    }
  }
  return written;
}

int commit_workunit_batches(Database& db, const std::vector<int64_t>& wu_ids, int per_commit,
                            LockedWorkunits& locked, const UnitOfWork& unit,
                            const std::function<bool()>& stop, const BatchFinish& finish_batch) {
  locked.clear();
  try {
    int written = commit_in_batches(
        db, wu_ids, per_commit, unit, stop,
        [&](Database& d, const std::vector<int64_t>& ids) { locked.lock(d, ids); }, finish_batch);
    locked.clear();
    return written;
  } catch (...) {
    locked.clear();
    throw;
  }
}

int commit_workunit_sets(Database& db, const std::vector<int64_t>& wu_ids, int per_commit,
                         LockedWorkunits& locked, const PlanUnit& plan, const std::function<bool()>& stop,
                         const BatchFinish& finish_batch) {
  const UnitOfWork unit_by_unit = [&](Database& d, int64_t id) {
    PlannedWrites writes;
    const bool wrote = plan(d, id, writes);
    write_row_by_row(d, writes);
    return wrote;
  };
  const size_t step = static_cast<size_t>(std::max(per_commit, 1));
  int written = 0;
  locked.clear();
  for (size_t first = 0; first < wu_ids.size(); first += step) {
    if (first > 0 && stop && stop()) break;
    const std::vector<int64_t> batch(wu_ids.begin() + first,
                                     wu_ids.begin() + std::min(wu_ids.size(), first + step));
    try {
      written += db.transaction([&](Database& d) {
        int planned = 0;
        try {
          locked.lock(d, batch);
          PlannedWrites writes;
          for (int64_t id : batch) planned += plan(d, id, writes) ? 1 : 0;
          if (!write_as_set(d, writes)) throw WriteUnitByUnit{"a row changed since it was read"};
        } catch (const StaleRow& e) {
          throw WriteUnitByUnit{e.what()};
        } catch (const DbError& e) {
          if (!e.lock_wait_timeout()) throw;
          throw WriteUnitByUnit{e.what()};
        }
        if (finish_batch) finish_batch(d, batch);
        return planned;
      });
      locked.clear();
    } catch (const WriteUnitByUnit& e) {
      log_warning(e.why, "; the batch of ", batch.size(), " units from workunit ", batch.front(),
                  " is written unit by unit");
      written += commit_workunit_batches(db, batch, per_commit, locked, unit_by_unit, {}, finish_batch);
    } catch (...) {
      locked.clear();
      throw;
    }
  }
  return written;
}

}  // namespace tharsis
