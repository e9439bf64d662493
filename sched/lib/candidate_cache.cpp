// Implementation of sched/lib/candidate_cache.h.
#include "sched/lib/candidate_cache.h"

#include <algorithm>

namespace tharsis {

bool CandidateCache::refill_due(int64_t now) const {
  return !read_at_ || now - *read_at_ >= kMaxAgeSeconds || (read_full_ && rows_.size() < kLowWater);
}

bool CandidateCache::read_ahead_due(int64_t now) const {
  return refill_due(now + kReadAheadSeconds) || (read_full_ && rows_.size() < 2 * kLowWater);
}

void CandidateCache::refill(std::vector<QueuedResultRow> rows, int64_t now) {
  rows_ = std::move(rows);
  read_at_ = now;
  read_full_ = rows_.size() >= static_cast<size_t>(kCapacity);
  // Who had what is remembered only for the workunits still queued.
  std::set<int64_t> queued;
  for (const auto& row : rows_) queued.insert(row.candidate.workunit_id);
  std::erase_if(held_by_, [&](const auto& entry) { return !queued.count(entry.first); });
}

std::vector<SendCandidateRow> CandidateCache::offer(
    size_t limit, int64_t host_id, const std::function<bool(const SendCandidateRow&)>& accept) const {
  std::vector<SendCandidateRow> out;
  for (const auto& row : rows_) {
    if (out.size() >= limit) break;
    auto held = held_by_.find(row.candidate.workunit_id);
    if (held != held_by_.end() && held->second.count(host_id)) continue;
    if (accept(row.candidate)) out.push_back(row.candidate);
  }
  return out;
}

std::optional<SendDetailsRow> CandidateCache::claimed(int64_t result_id, int64_t workunit_id, int64_t host_id,
                                                      bool won) {
  if (won) held_by_[workunit_id].insert(host_id);
  auto row = std::find_if(rows_.begin(), rows_.end(),
                          [&](const QueuedResultRow& r) { return r.candidate.result_id == result_id; });
  if (row == rows_.end()) return std::nullopt;
  std::optional<SendDetailsRow> details;
  if (won) details = std::move(row->details);
  rows_.erase(row);
  return details;
}

void CandidateCache::refused(int64_t workunit_id, int64_t host_id) { held_by_[workunit_id].insert(host_id); }

void refill_candidate_cache(Database& db, CandidateCache& cache, int64_t now) {
  cache.refill(fetch_queue_part(db, cache.part(), now, CandidateCache::kCapacity), now);
}

}  // namespace tharsis
