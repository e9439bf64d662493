// Implementation of lib/daemon/batch_commit.h.
#include "lib/daemon/batch_commit.h"

#include <algorithm>
#include <set>

#include "db/stale_row.h"
#include "lib/log.h"

namespace tharsis {
namespace {

constexpr int kLockWaitTimeout = 1205;

// Thrown inside the batch's transaction to roll it back and re-run it without unit `index`.
struct SkipUnit {
  size_t index;
};

}  // namespace

int commit_in_batches(Database& db, size_t count, int per_commit, const std::function<bool(Database&, size_t)>& unit,
                      const std::function<bool()>& stop) {
  const size_t step = static_cast<size_t>(std::max(per_commit, 1));
  int written = 0;
  for (size_t first = 0; first < count; first += step) {
    if (first > 0 && stop && stop()) break;
    const size_t last = std::min(count, first + step);
    std::set<size_t> skipped;
    // Each skip removes one unit, so this ends after at most step + 1 runs.
    for (;;) {
      try {
        written += db.transaction([&](Database& d) {
          int batch_written = 0;
          for (size_t i = first; i < last; ++i) {
            if (skipped.count(i)) continue;
            try {
              batch_written += unit(d, i) ? 1 : 0;
            } catch (const StaleRow& e) {
              log_warning(e.what());
              throw SkipUnit{i};
            } catch (const DbError& e) {
              if (e.code() != kLockWaitTimeout) throw;
              log_warning(e.what(), "; unit left for the next pass");
              throw SkipUnit{i};
            }
          }
          return batch_written;
        });
        break;
      } catch (const SkipUnit& skip) {
        skipped.insert(skip.index);
      }
    }
  }
  return written;
}

int commit_in_batches(Database& db, const std::vector<int64_t>& ids, int per_commit,
                      const std::function<bool(Database&, int64_t)>& unit, const std::function<bool()>& stop) {
  return commit_in_batches(
      db, ids.size(), per_commit, [&](Database& d, size_t i) { return unit(d, ids[i]); }, stop);
}

}  // namespace tharsis
