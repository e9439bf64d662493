// Invariants of the back-end law that hold at every committed instant, checked over one
// workunit and all its results. tools/check runs them against a live database; the unit
// tests run them after every step of random workunit lifecycles. The "eventually"
// properties of the law (canonical or error, transition_time = never) are not instant
// properties and are not here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/rows.h"

namespace tharsis {

struct InvariantViolation {
  std::string rule;  // short stable name, e.g. "outcome_iff_over"
  int64_t workunit_id = 0;
  int64_t result_id = 0;  // 0 when the violation is about the workunit
  std::string message;    // says what was expected, what was found, and where
};

// Checks, for the workunit and each of its results:
//  results:
//   result_of_workunit      result.workunitid == wu.id
//   distinct_names          no two results share a name
//   outcome_iff_over        outcome != INIT exactly when server_state == OVER
//   validate_state_defined  validate_state != INIT only for outcome SUCCESS, or ERROR with
//                           outcome VALIDATE_ERROR (and VALIDATE_ERROR has validate ERROR)
//   deadline_when_sent      an IN_PROGRESS result has a report_deadline
//   verdict_needs_canonical VALID, INVALID or TOO_LATE only once a canonical result exists
//   no_check_needs_error    NO_CHECK only when error_mask != 0
//   result_files_after_assimilation  result file_delete_state != INIT only if it is OVER
//                           and the workunit is assimilated (DONE)
//   canonical_files_last    the canonical result's files go only when all results are OVER
//  workunit:
//   canonical_is_valid      canonical_resultid names one of the results, SUCCESS and VALID
//   canonical_is_assimilated  canonical result set => assimilate_state != INIT
//   no_unsent_after_canonical  canonical result set => no result UNSENT
//   assimilate_needs_reason assimilate_state != INIT => canonical result or error_mask
//   input_files_after_all_over  file_delete_state != INIT => assimilate DONE, all results OVER
//   timeout_scheduled       for each IN_PROGRESS result, transition_time <= report_deadline + 1
//                           or transition_time <= now (already due: the scheduler sets it to
//                           now on a report even when another result's deadline has passed
//                           and the transitioner is behind). So transition_time = never =>
//                           nothing IN_PROGRESS. `now` is the checker's clock.
//   total_results_bounded   #results <= max_total_results
std::vector<InvariantViolation> check_workunit_invariants(const WorkunitRow& wu,
                                                          const std::vector<ResultRow>& results, int64_t now);

// One line per violation: "[rule] message".
std::string format_violations(const std::vector<InvariantViolation>& violations);

}  // namespace tharsis
