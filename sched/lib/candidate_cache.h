// What a FastCGI scheduler process keeps of the unsent queue between its requests, so that
// a request takes its candidates from memory instead of reading and locking the head of
// the queue (the heaviest of an RPC's statements): BOINC's feeder and its shared-memory
// array of jobs, without the separate daemon, the fixed slots or the feeder's delay.
//  - Each worker of a FastCGI pool caches its own part of the queue (db/send_store.h
//    QueuePart: the workunits whose id modulo the pool's size is its slot), so no two
//    workers offer the same result (but one reserved for a host, which every part holds so
//    that the host finds it whichever worker serves it), and a worker's claims are not
//    lost to its neighbours.
//    All of a workunit's results are in one part, so the process knows which of its hosts
//    it sent one of them to, and does not offer such a host another (nor one whose claim
//    was refused because the host had a result of the workunit).
//  - A row leaves when a claim of it was tried (won, or lost: another scheduler sent it);
//    one the request's host could not take stays for the next host.
//  - The whole part is read again (replaced) when the rows were read kMaxAgeSeconds ago,
//    so new work, of a higher priority too, and new reservations reach requests within
//    that time; and before that when fewer than kLowWater rows are left of a read that
//    filled the cache (the part may hold more: a read short of kCapacity took all it had).
//    A pool worker reads ahead between requests (read_ahead_due), so that a request
//    rarely waits for the read: only one that comes after the worker was idle a while.
// Stale rows cost a lost claim, never a wrong send: every claim is still guarded in the
// database (result UNSENT, once per host). Not thread-safe: one per process, as the pool's
// workers serve one request at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "db/send_store.h"

namespace tharsis {

class CandidateCache {
 public:
  static constexpr int kCapacity = 256;    // rows read per refill
  static constexpr size_t kLowWater = 64;  // fewer rows left: refill
  static constexpr int64_t kMaxAgeSeconds = 2;

  explicit CandidateCache(QueuePart part) : part_(part) {}

  const QueuePart& part() const { return part_; }
  size_t size() const { return rows_.size(); }

  // Whether the rows should be read again before the request at `now` takes from them:
  // never read, read kMaxAgeSeconds ago or earlier, or fewer than kLowWater left of a full
  // read.
  bool refill_due(int64_t now) const;
  // Whether to read the rows again now, between requests, so that no request has to: when
  // refill_due would be within kReadAheadSeconds, or fewer than twice kLowWater are left of
  // a full read.
  bool read_ahead_due(int64_t now) const;
  static constexpr int64_t kReadAheadSeconds = 1;
  // Replaces the rows with `rows` (in queue order) read at `now`.
  void refill(std::vector<QueuedResultRow> rows, int64_t now);

  // Up to `limit` rows in queue order that `accept` takes, leaving out those of workunits
  // `host_id` is known to have had a result of.
  std::vector<SendCandidateRow> offer(size_t limit, int64_t host_id,
                                      const std::function<bool(const SendCandidateRow&)>& accept) const;

  // A claim of `result_id` (of `workunit_id`) for `host_id` was tried: the row leaves; when
  // it was `won`, the workunit's other rows are no longer offered to that host, and the
  // row's reply details are returned (nullopt: not a row of the cache, or lost).
  std::optional<SendDetailsRow> claimed(int64_t result_id, int64_t workunit_id, int64_t host_id, bool won);
  // A claim for `host_id` was refused because it had a result of `workunit_id` (sent by
  // another process, or reported): the rows stay for other hosts, not for this one.
  void refused(int64_t workunit_id, int64_t host_id);

 private:
  QueuePart part_;
  std::vector<QueuedResultRow> rows_;  // queue order
  std::optional<int64_t> read_at_;
  bool read_full_ = false;                        // the last read returned kCapacity rows
  std::map<int64_t, std::set<int64_t>> held_by_;  // workunit -> hosts known to have had a result of it
};

// Reads `cache`'s part of the unsent queue (kCapacity rows) at `now` into it.
void refill_candidate_cache(Database& db, CandidateCache& cache, int64_t now);

}  // namespace tharsis
