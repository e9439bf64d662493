// SQL the scheduler reads to pick and send work: unsent results with what their workunit
// needs (resource bounds, deadline) and the operand graph's host preference, best first;
// the results a host holds, with what deciding on aborts and resends needs of their
// workunits; and what a reply says of a result being sent. Each is one query over indexes.
// (The writes of a send are db/result_store.h's claim_unsent_result and friends.)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/states.h"

namespace tharsis {

struct SendCandidateRow {
  int64_t result_id = 0;
  int64_t workunit_id = 0;
  int64_t appid = 0;
  int priority = 0;
  double rsc_fpops_est = 0, rsc_memory_bound = 0, rsc_disk_bound = 0;
  int delay_bound = 0;
  int64_t preferred_host = 0;
  int64_t preferred_until = 0;
};

// What one host can take, as the send query's filter (the same rules as
// sched/lib/work_selection.h's check_candidate, applied while the queue is read, so that
// no amount of work the host cannot take at the head of the queue hides work it can).
struct SendFilter {
  int64_t host_id = 0;                     // never a workunit it had a result of
  std::vector<int64_t> apps_not_runnable;  // apps with no version for its platforms
  double memory_bytes = 0;                 // 0: unknown, no memory bound applied
  double disk_free_bytes = 0;
  double flops = 1e9;  // per CPU; a result it cannot finish within its delay bound is not for it
  int64_t now = 0;     // operands reserved for another host until after now are not for it
};

// Up to `limit` UNSENT results by priority (highest first), then age, that `filter`'s
// host may take, read in the order of the result(server_state, priority DESC, id) index:
// about `limit` rows plus those passed over are read, however long the queue is.
std::vector<SendCandidateRow> fetch_send_candidates(Database& db, const SendFilter& filter, int limit);
// The same inside a transaction that will claim from them: each result row returned and
// its workunit's are locked until the transaction ends, and rows another transaction
// holds locked are passed over (SKIP LOCKED) instead of waited for. Concurrent requests
// so take disjoint candidates instead of racing for the head of the queue and losing
// their claims. (Result rows a request locks but does not claim are only passed over by
// others until it commits: the queue's order bends by at most a window's rows.)
std::vector<SendCandidateRow> lock_send_candidates(Database& db, const SendFilter& filter, int limit);
// Only the first rule: workunits `host_id` (> 0) was never sent a result of.
std::vector<SendCandidateRow> fetch_send_candidates(Database& db, int64_t host_id, int limit);
// The same for no host in particular (simulated hosts take what they are given).
std::vector<SendCandidateRow> fetch_send_candidates(Database& db, int limit);

// A result sent to a host, with its workunit's state as far as aborts and resends go.
struct HostResultRow {
  int64_t result_id = 0;
  int64_t workunit_id = 0;
  std::string name;
  int64_t hostid = 0;
  ServerState server_state = ServerState::Unsent;
  Outcome outcome = Outcome::Init;
  int64_t report_deadline = 0;
  int delay_bound = 0;    // the workunit's
  int wu_error_mask = 0;  // nonzero: the workunit is dead
  int64_t wu_canonical_resultid = 0;
  AssimilateState wu_assimilate_state = AssimilateState::Init;
};
// The results IN_PROGRESS at `host_id` (index res_host: the host's own rows only).
std::vector<HostResultRow> fetch_in_progress_results_at_host(Database& db, int64_t host_id);
// The same for several hosts in one statement, by host id (every id a key, none read for an
// id with none).
std::map<int64_t, std::vector<HostResultRow>> fetch_in_progress_results_at_hosts(
    Database& db, const std::vector<int64_t>& host_ids);
// The result named `name`, whatever its host and state (a client naming one the server no
// longer has in progress for it).
std::optional<HostResultRow> fetch_host_result_by_name(Database& db, const std::string& name);

// What a scheduler reply carries of a result just sent (or resent) and its workunit.
struct SendDetailsRow {
  int64_t result_id = 0;
  std::string name;
  std::string xml_doc_in;  // output file templates
  int64_t report_deadline = 0;
  int64_t appid = 0;
  int64_t workunit_id = 0;
  std::string wu_name;
  std::string wu_xml_doc;  // input file descriptions, command line
  double rsc_fpops_est = 0, rsc_fpops_bound = 0, rsc_memory_bound = 0, rsc_disk_bound = 0;
};
// Those of `result_ids`, in one read, in that order (ids not found are left out).
std::vector<SendDetailsRow> fetch_send_details(Database& db, const std::vector<int64_t>& result_ids);

// One part of the unsent queue: the results of the workunits whose id is `index` modulo
// `count` (all of a workunit's results in one part), 0 <= index < count.
struct QueuePart {
  int count = 1;
  int index = 0;
};
// Up to `limit` UNSENT results of `part`, by priority (highest first), then age, for no host
// in particular, read without locks (a FastCGI scheduler process's candidate cache,
// sched/lib/candidate_cache.h); results reserved for a host until after `now` (an operand's
// preferred host) are in every part, so that host finds them whichever process serves it.
// Two reads: about `limit` × count res_send entries walked, from the index alone but for the
// `limit` rows returned; and the reserved results from the operands holding a reservation.
// Each row also carries what a reply says of the result if it is sent (its report_deadline
// 0 until then), so a request that sends it from the cache need not read it again.
struct QueuedResultRow {
  SendCandidateRow candidate;
  SendDetailsRow details;
};
std::vector<QueuedResultRow> fetch_queue_part(Database& db, const QueuePart& part, int64_t now, int limit);

}  // namespace tharsis
