// The graph scheduler's rules (docs/operand_graphs.md) as pure functions over rows: what
// an operand becomes when its job ends, which host a successor should prefer, when the
// graph is over, whom a FATAL operand takes down, what a cancel does to each operand, and
// Mars's two-pass reassignment after lost data. The daemon's shell
// (lib/graph_scheduler_pass.h) loads rows, asks these, and writes the answers in one
// transaction per operand (or per graph).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "db/rows.h"

namespace tharsis {

// An operand made of a chunk the submitter uploaded (an input tensor's chunk): created
// FINISHED with no workunit (workunitid 0); its output is the file "jf_<md5>" in download/,
// staged for successors as it is and never deleted by the graph (the submitter's sandbox
// keeps it). It cannot run again: if its file is lost the operand is FATAL.
bool is_uploaded_chunk(const OperandRow& operand);

// The operand's work is over for good: FREED, FATAL or CANCELLED (FINISHED still holds data).
bool is_final(OperandState state);
// Finished in Mars's sense: its output exists or existed (FINISHED or FREED).
bool has_finished(OperandState state);

// What a READY, RUNNING or CANCELLING operand becomes once its current workunit is
// assimilated: CANCELLED if it was being cancelled or the workunit carries the CANCELLED
// bit; FINISHED if the workunit has a canonical result and no error; FATAL otherwise
// (retries exhausted: the error_mask says why).
OperandState state_after_job(OperandState current, const WorkunitRow& wu);
// Whether the operand's job is over, so state_after_job applies now: its workunit is
// assimilated and the operand is READY or RUNNING, or CANCELLING with none of the
// workunit's `results` still IN_PROGRESS (a host may still be computing it: the abort
// goes out with that host's next RPC).
bool job_has_ended(const OperandRow& operand, const WorkunitRow& wu, const std::vector<ResultRow>& results);

// FINISHED -> FREED (the file deleter may delete the output) once every successor has
// finished (FINISHED or FREED): nothing needs the output any more.
bool output_may_be_freed(const OperandRow& operand, const std::vector<OperandRow>& successors);

// An operand of a cancelled graph: UNSCHEDULED -> CANCELLED at once (no result was ever
// created); READY/RUNNING -> CANCELLING (results in flight are aborted at the hosts' next
// RPC, CANCELLED once the workunit is assimilated); FINISHED -> FREED (its data is no
// longer needed). Others are final and stay.
OperandState state_on_cancel(OperandState current);
// Whether the operand's current workunit gets the CANCELLED error bit on cancel.
bool cancel_marks_workunit(OperandState current);

// A successor's input source: the host that computed a predecessor's output, and its size.
struct InputLocation {
  int64_t host_id = 0;
  int64_t nbytes = 0;
};
// The host holding the largest total size of the inputs (ties: the lower host id), or 0
// when no input has a known host.
int64_t preferred_host(const std::vector<InputLocation>& inputs);

// A READY operand reserved for its preferred host (preferred_until in the future) is sent
// to no other host meanwhile; the reservation is released early when that host can take
// no work (issue 18), as the scheduler would see it:
struct PreferredHostView {
  bool exists = false;
  int64_t rpc_time = 0;     // its last scheduler RPC (Unix seconds)
  int nresults_today = 0;   // results sent to it on day nresults_day
  int nresults_day = 0;     // Unix time / 86400
  int max_results_day = 0;  // its daily quota; 0: the project's <daily_result_quota>
};
enum class ReservationVerdict {
  Keep,
  HostGone,    // no such host row
  QuotaSpent,  // today's quota used up: the scheduler sends it nothing before tomorrow
  HostSilent,  // no RPC for more than `silent_seconds`: it stopped asking
};
ReservationVerdict reservation_verdict(const PreferredHostView& host, int default_daily_quota,
                                       int64_t silent_seconds, int64_t now);

// The graph's next state, or nullopt if it stays. RUNNING -> DONE when every operand has
// finished; RUNNING -> FAILED when some operand is FATAL and none is still UNSCHEDULED,
// READY, RUNNING or CANCELLING; CANCELLING -> CANCELLED when none is READY, RUNNING,
// UNSCHEDULED or CANCELLING. Final states stay.
std::optional<GraphState> graph_state_after(GraphState current,
                                            const std::map<OperandState, int64_t>& counts);

// The operands whose staged copy (download/<output>.in) a graph that ended FAILED or
// CANCELLED may have left with no workunit naming it: a promotion stages its inputs and
// then may roll back (a lost input elsewhere, a daemon killed, the database gone), and if
// the graph ends before the promotion runs again, no workunit ever takes the copy and no
// file deleter ever sees it. Every operand of `operands` that produced an output, except
// uploaded chunks (their file is the submitter's, staged as it is). None for any other
// state (may_leave_copies): in a DONE graph every successor took its copies.
bool may_leave_copies(GraphState final_state);
std::vector<const OperandRow*> producers_of_leftover_copies(GraphState final_state,
                                                            const std::vector<OperandRow>& operands);

// Every operand reachable from `start` along predecessor -> successor edges (not `start`).
std::set<int64_t> descendants(const std::multimap<int64_t, int64_t>& successors_of, int64_t start);

// The two-pass reassignment of Mars's fault tolerance for operands whose needed
// input turned out missing or corrupt.
struct ReassignNode {
  OperandState state = OperandState::Unscheduled;
  bool output_lost = false;  // FINISHED but its output is gone or fails its checksum
  std::vector<int64_t> predecessors;
};
struct ReassignPlan {
  // Operands that run again in a new, held workunit (state UNSCHEDULED): producers whose
  // output is lost or already freed, recursively, and consumers that had been started.
  std::set<int64_t> rerun;
  // Operands that wait (UNSCHEDULED, held) for the reruns: the consumers that found the loss.
  std::set<int64_t> held;
};
// `needing`: operands that need their inputs now (about to become READY, or READY/RUNNING
// with a failed download). Pass 1 marks the FINISHED operands with lost output (among the
// needing operands' predecessors) and the needing operands affected; pass 2 walks from
// every affected operand to its predecessors, marking a predecessor affected when its
// output is lost or it holds none any more (FREED). Every affected operand that already
// ran or was started is rerun; affected operands still UNSCHEDULED are held.
ReassignPlan plan_reassign(const std::map<int64_t, ReassignNode>& graph, const std::vector<int64_t>& needing);

}  // namespace tharsis
