// lib/daemon/cursor_read.h: a queue read that goes on from where the last one ended.
#include "lib/daemon/cursor_read.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

namespace tharsis {
namespace {

struct Row {
  int64_t id = 0;
};

// A queue of ready ids; each fetch also records the windows it was asked for.
struct Queue {
  std::set<int64_t> ready;
  int fetches = 0;
  std::vector<Row> operator()(int64_t after, int64_t upto, int limit) {
    ++fetches;
    std::vector<Row> out;
    for (auto it = ready.upper_bound(after); it != ready.end() && *it <= upto; ++it) {
      if (static_cast<int>(out.size()) == limit) break;
      out.push_back({*it});
    }
    return out;
  }
};

std::vector<int64_t> ids_of(const std::vector<Row>& rows) {
  std::vector<int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.id);
  return ids;
}

// What a daemon does with the rows it read: they leave the queue.
void take(Queue& q, const std::vector<Row>& rows) {
  for (const auto& r : rows) q.ready.erase(r.id);
}

TEST(CursorRead, AFullReadMovesTheCursorAndTheNextReadGoesOnFromIt) {
  Queue q{{1, 2, 3, 4, 5, 6, 7}};
  int64_t cursor = 0;
  auto first = read_from_cursor(cursor, 3, q);
  EXPECT_EQ(ids_of(first), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(cursor, 3);
  // Rows 1-3 are not taken (say their deletion failed): the walk does not go back to them yet.
  auto second = read_from_cursor(cursor, 3, q);
  EXPECT_EQ(ids_of(second), (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(cursor, 6);
}

TEST(CursorRead, AShortReadFillsItsLimitFromBehindTheCursorWithoutRepeatingARow) {
  Queue q{{2, 4, 8, 9}};
  int64_t cursor = 7;
  auto rows = read_from_cursor(cursor, 3, q);
  EXPECT_EQ(ids_of(rows), (std::vector<int64_t>{8, 9, 2}));
  EXPECT_EQ(cursor, 2);  // the part behind filled its share: go on from there
  EXPECT_EQ(q.fetches, 2);
  // Nothing was taken: the walk goes on after 2 and comes round to 8 and 9 again.
  auto next = read_from_cursor(cursor, 3, q);
  EXPECT_EQ(ids_of(next), (std::vector<int64_t>{4, 8, 9}));
  EXPECT_EQ(cursor, 9);
}

TEST(CursorRead, RowsMadeReadyBehindTheWalkAreReadOnceItReachesTheEnd) {
  Queue q{{10, 11, 12, 13}};
  int64_t cursor = 0;
  take(q, read_from_cursor(cursor, 2, q));  // 10, 11
  q.ready.insert(5);                        // behind the cursor (11)
  auto rows = read_from_cursor(cursor, 2, q);
  EXPECT_EQ(ids_of(rows), (std::vector<int64_t>{12, 13}));
  take(q, rows);
  auto wrapped = read_from_cursor(cursor, 2, q);
  EXPECT_EQ(ids_of(wrapped), (std::vector<int64_t>{5}));
  EXPECT_EQ(cursor, 0);
}

TEST(CursorRead, DrainingAQueueReadsEveryRowExactlyOnce) {
  for (int limit : {1, 3, 7, 50}) {
    Queue q;
    for (int64_t id = 1; id <= 100; ++id) q.ready.insert(id * 3);
    std::vector<int64_t> seen;
    int64_t cursor = 0;
    for (int call = 0; call < 1000 && !q.ready.empty(); ++call) {
      auto rows = read_from_cursor(cursor, limit, q);
      for (const auto& r : rows) seen.push_back(r.id);
      take(q, rows);
      if (call % 5 == 0) q.ready.insert(1000 + call);  // new work keeps arriving
    }
    EXPECT_TRUE(q.ready.empty()) << "limit " << limit;
    std::vector<int64_t> sorted = seen;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end())
        << "a row read twice, limit " << limit;
  }
}

TEST(CursorRead, AReadOfIdsWalksTheSameWay) {
  std::set<int64_t> ready{3, 6, 9, 12};
  auto fetch = [&](int64_t after, int64_t upto, int limit) {
    std::vector<int64_t> out;
    for (auto it = ready.upper_bound(after);
         it != ready.end() && *it <= upto && static_cast<int>(out.size()) < limit; ++it)
      out.push_back(*it);
    return out;
  };
  int64_t cursor = 0;
  EXPECT_EQ(read_from_cursor(cursor, 3, fetch), (std::vector<int64_t>{3, 6, 9}));
  EXPECT_EQ(cursor, 9);
  EXPECT_EQ(read_from_cursor(cursor, 3, fetch), (std::vector<int64_t>{12, 3, 6}));
  EXPECT_EQ(cursor, 6);
}

TEST(CursorRead, AnEmptyQueueLeavesTheCursorAtTheStart) {
  Queue q;
  int64_t cursor = 42;
  EXPECT_TRUE(read_from_cursor(cursor, 5, q).empty());
  EXPECT_EQ(cursor, 0);
}

}  // namespace
}  // namespace tharsis
