// The transitioner's rules of the back-end law (db/states.h: BOINC's state variables and their codes) as
// one pure function: given a workunit, all its results and the clock, say what to write.
// The daemon's shell loads the rows, calls plan_transition, and writes the plan in one
// transaction; nothing here touches the database or the disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/row_changes.h"
#include "db/rows.h"

namespace tharsis {

// BOINC's EXIT_ABORTED_VIA_GUI: a CLIENT_ERROR with this exit status was aborted by the
// volunteer, so it counts as "no reply" rather than as an error of the job.
inline constexpr int kExitAbortedViaGui = 203;

// How the workunit's results stood when the plan was made (after time-outs); for logs.
struct TransitionCounts {
  int total = 0;
  int unsent = 0;
  int in_progress = 0;  // still in progress after this pass's time-outs
  int over = 0;
  int success = 0;  // outcome SUCCESS and not INVALID
  int errors = 0;   // CLIENT_ERROR (not aborted by the volunteer) + VALIDATE_ERROR
  int couldnt_send = 0;
  int no_reply = 0;  // NO_REPLY, CLIENT_DETACHED, aborted by the volunteer
  int didnt_need = 0;
  int timed_out = 0;  // results this pass moved IN_PROGRESS -> OVER/NO_REPLY
  int new_results = 0;
};

struct TransitionPlan {
  // The workunit as it should be written. Fields the transitioner may change:
  // error_mask, assimilate_state, need_validate, file_delete_state, transition_time.
  WorkunitRow workunit;
  // Existing results that change (only those that do). Fields the transitioner may
  // change: server_state, outcome, validate_state, file_delete_state.
  std::vector<ResultUpdate> result_updates;
  // Results to insert (id 0). Each has: name "<wu name>_<n>" with n distinct from every
  // existing result's suffix (one more than the largest, and at least the number of
  // existing results); workunitid, appid and priority from the workunit; create_time
  // now; server_state UNSENT; outcome INIT; validate_state INIT; file_delete_state INIT;
  // report_deadline 0; hostid 0; random a hash of the name (spreads sends). xml_doc_in is
  // left empty: the shell fills it from the workunit's result template, as create_work
  // does for the first results.
  std::vector<ResultRow> new_results;
  // Results timed out by this plan; the shell may penalise their hosts' daily quota.
  std::vector<int64_t> timed_out_result_ids;
  TransitionCounts counts;
  // What happened, for the log (ids included): time-outs, error bits, new results,
  // a canonical_resultid that names no result of the workunit.
  std::vector<std::string> notes;
};

// Applies, in order:
//  1. Time-out: an IN_PROGRESS result with now > report_deadline becomes OVER/NO_REPLY.
//  2. TOO_LATE: a SUCCESS result still INIT whose workunit's canonical result has its
//     files deleted (file_delete_state != INIT) can no longer be validated.
//  3. Error bits (only while there is no canonical result — a workunit that has one has
//     succeeded): COULDNT_SEND if some result has outcome COULDNT_SEND; TOO_MANY_RESULTS
//     if errors > max_error_results; TOO_MANY_TOTAL_RESULTS if total > max_total_results,
//     or if new results are needed and total == max_total_results.
//  4. If error_mask != 0: UNSENT results -> OVER/DIDNT_NEED; SUCCESS results with
//     validate_state INIT or INCONCLUSIVE -> NO_CHECK; assimilate_state INIT -> READY.
//     Otherwise, if there is no canonical result: create
//     min(target_nresults - unsent - in_progress - success, max_total_results - total)
//     new results when that is positive.
//  5. need_validate := true if some SUCCESS result is still INIT and either a canonical
//     result exists (a straggler to check against it) or success >= min_quorum. It is
//     never cleared here (the validator clears it).
//  6. If assimilate_state == DONE: the workunit's file_delete_state INIT -> READY when
//     every result is OVER and no SUCCESS result is still INIT; each result's
//     file_delete_state INIT -> READY when its outcome is CLIENT_ERROR or its
//     validate_state is not INIT — except the canonical result, which waits for the same
//     "all OVER, all SUCCESS validated" condition as the inputs.
//  7. transition_time := the earliest report_deadline of a result still IN_PROGRESS, or
//     kTransitionNever if none. A deadline equal to now becomes now + 1: the result only
//     times out once now > report_deadline, so looking again at `now` would do nothing.
// The caller must pass every result of the workunit, read in the same transaction.
TransitionPlan plan_transition(const WorkunitRow& wu, const std::vector<ResultRow>& results, int64_t now);

// The number n of a result named "<wu_name>_<n>", or -1 if the name has another form.
int64_t result_name_suffix(const std::string& wu_name, const std::string& result_name);

}  // namespace tharsis
