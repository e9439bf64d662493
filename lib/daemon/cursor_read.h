// A daemon's queue read that resumes after the last row it returned instead of starting at
// the head of the queue each time.
//
// Why: a queue such as "file_delete_state = READY" is read through its index in id order.
// Rows done leave their index entries delete-marked until InnoDB's purge removes them, and
// a read from the head walks over every such entry before it reaches a live row: work the
// server does but Rows_read does not count, and which grows with the purge lag. Reading on
// from the cursor skips what the walk already passed.
//
// The walk: each read takes up to `limit` rows with id > cursor. A full read moves the
// cursor to its last id. A short one has reached the end of the queue, so the same call
// reads the rest of its limit from the start up to the old cursor (rows that became ready
// behind the walk, or that were skipped for a while), and the next call starts over from
// there. No row is returned twice by one call, and every row that stays ready is returned
// within two calls of reaching the end.
#pragma once

#include <cstdint>
#include <limits>

namespace tharsis {

inline constexpr int64_t kNoUpperId = std::numeric_limits<int64_t>::max();

// The id of a row a read returned: the row itself when the read returns ids.
inline int64_t row_id(int64_t id) { return id; }
template <class Row>
int64_t row_id(const Row& row) {
  return row.id;
}

// `fetch(after, upto, limit)` returns at most `limit` ready rows with after < id <= upto in
// ascending id order (rows with an `id`, or ids); `cursor` is the walk's state, 0 at the start.
template <class Fetch>
auto read_from_cursor(int64_t& cursor, int limit, Fetch&& fetch) -> decltype(fetch(0, 0, 0)) {
  const int64_t start = cursor;
  auto rows = fetch(start, kNoUpperId, limit);
  if (static_cast<int>(rows.size()) >= limit) {
    if (!rows.empty()) cursor = row_id(rows.back());
    return rows;
  }
  cursor = 0;
  if (start == 0) return rows;
  const int rest = limit - static_cast<int>(rows.size());
  auto behind = fetch(0, start, rest);
  if (static_cast<int>(behind.size()) >= rest && !behind.empty()) cursor = row_id(behind.back());
  rows.insert(rows.end(), behind.begin(), behind.end());
  return rows;
}

}  // namespace tharsis
