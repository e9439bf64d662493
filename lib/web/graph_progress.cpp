// Graph state word, progress and staged data (see graph_progress.h).
#include "lib/web/graph_progress.h"

#include <algorithm>
#include <utility>

namespace tharsis {

namespace {

int64_t count_of(const std::map<OperandState, int64_t>& counts, OperandState state) {
  auto it = counts.find(state);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

double graph_progress(const std::map<OperandState, int64_t>& counts) {
  int64_t total = 0;
  for (const auto& [state, count] : counts) total += count;
  if (total == 0) return 0;
  const int64_t done = count_of(counts, OperandState::Finished) + count_of(counts, OperandState::Freed);
  return static_cast<double>(done) / static_cast<double>(total);
}

std::vector<StagedDataPoint> staged_data_series(const std::vector<OperandNode>& operands) {
  std::vector<std::pair<int64_t, int64_t>> events;  // (time, byte change)
  for (const auto& operand : operands) {
    if (operand.finish_time <= 0) continue;
    events.emplace_back(operand.finish_time, operand.output_bytes);
    if (operand.state == OperandState::Freed) {
      events.emplace_back(std::max(operand.freed_time, operand.finish_time), -operand.output_bytes);
    }
  }
  std::sort(events.begin(), events.end());
  std::vector<StagedDataPoint> series;
  int64_t bytes = 0;
  for (size_t i = 0; i < events.size();) {
    const int64_t time = events[i].first;
    if (!series.empty()) series.push_back({time, bytes});  // hold the level until this change
    for (; i < events.size() && events[i].first == time; ++i) bytes += events[i].second;
    series.push_back({time, bytes});
  }
  return series;
}

}  // namespace tharsis
