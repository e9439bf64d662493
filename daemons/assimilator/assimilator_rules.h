// The assimilator's rules of the back-end law as one pure function: given a workunit
// with assimilate_state READY, its results, what the shell found when it checked the
// canonical result's output files against that result's report, and the clock, say what
// to write. The shell (lib/assimilator_pass.h) loads and locks the rows, checks the files
// (lib/work/output_check.h), calls plan_assimilation, and applies the plan with guarded writes
// in one transaction.
//
// Why a canonical result can be withdrawn (issue 13): the validator judged the files that
// were on the server when it ran. If the canonical result's files no longer have the size
// and md5 its host reported (a re-upload after validation, a damaged disk), the bytes to
// assimilate are not the ones that were agreed on, and storing them would hand the project
// a forged answer. The seed lets only the validator set canonical_resultid, and never
// resets it; this is the one, documented, exception. It keeps the law's invariants:
//  - "assimilated exactly once": nothing is assimilated (no record, nothing stored) when the
//    canonical result is withdrawn; the workunit is assimilated once, later, with a new
//    canonical result or an error;
//  - "eventually canonical or error_mask": the workunit is back to where it was before its
//    consensus — its other reported results are unvalidated again (validate_state INIT),
//    so the transitioner sets need_validate when they still make a quorum and makes
//    replacements as for any VALIDATE_ERROR when they do not, and the error limits
//    (max_error_results, max_total_results) still bound the attempts. (INCONCLUSIVE
//    instead of INIT would not do: the transitioner does not set need_validate for
//    INCONCLUSIVE results, so a validator pass that clears need_validate and retries later
//    after a transient read error would leave the workunit waiting for ever — the
//    property test found that.);
//  - every instant invariant of tools/lib/invariants.h: no verdict (VALID/INVALID) without a
//    canonical result, VALIDATE_ERROR always with validate_state ERROR, assimilate_state
//    INIT without a canonical result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/row_changes.h"
#include "db/rows.h"

namespace tharsis {

// What the shell found, comparing the canonical result's output files in upload/ with the
// sizes and md5s the result reported.
enum class CanonicalOutputs {
  Match,       // every file is what the result reported (or there is no canonical result)
  Mismatch,    // some file differs, is missing, or was never described by the report
  Unreadable,  // a file could not be read now (I/O error): try again on a later pass
};

enum class AssimilationAction {
  None,               // not READY (another process was first): nothing to do
  Assimilate,         // hand the workunit to the handler, record it, set DONE
  WithdrawCanonical,  // the canonical outputs are not what was reported: back to validation
  RetryLater,         // leave READY; the next pass looks again
};

struct AssimilationPlan {
  AssimilationAction action = AssimilationAction::None;
  // The workunit as it should be written (Assimilate, WithdrawCanonical). Fields the
  // assimilator may change: assimilate_state, transition_time; when withdrawing also
  // canonical_resultid, canonical_credit.
  WorkunitRow workunit;
  // WithdrawCanonical only. Fields that may change: outcome (SUCCESS -> VALIDATE_ERROR),
  // validate_state, granted_credit.
  std::vector<ResultUpdate> result_updates;
  // WithdrawCanonical only: the credit the withdrawn consensus had granted, taken back from
  // each host's and user's totals (negative changes; the validator grants it again to the
  // results it finds valid).
  std::vector<CreditChange> credit_changes;
  std::vector<std::string> notes;  // for the log, ids included
};

// The workunit's canonical result among `results`, or null when it has none (an error
// workunit) or it is not among them.
const ResultRow* canonical_result(const WorkunitRow& wu, const std::vector<ResultRow>& results);

// The rules:
// - assimilate_state != READY: None.
// - canonical outputs Unreadable: RetryLater.
// - canonical outputs Match (or no canonical result — an error workunit): Assimilate:
//   assimilate_state DONE, transition_time := now (the transitioner schedules file deletion).
// - canonical outputs Mismatch: WithdrawCanonical:
//   the canonical result: outcome VALIDATE_ERROR, validate_state ERROR, granted_credit 0
//     (as the validator treats an output it cannot trust: it never agrees with anything);
//   every other result VALID or INVALID: validate_state INIT, granted_credit 0 (its verdict
//     was relative to a consensus that is gone; the validator weighs it again);
//   the credit those results had been granted is taken back (credit_changes);
//   the workunit: canonical_resultid 0, canonical_credit 0, assimilate_state INIT,
//     transition_time := now (the transitioner then sets need_validate if the results left
//     make a quorum, or makes replacements), error_mask unchanged (if some bit is set, the
//     transitioner ends the workunit in error as usual).
// The caller must pass every result of the workunit, read in the same transaction.
AssimilationPlan plan_assimilation(const WorkunitRow& wu, const std::vector<ResultRow>& results,
                                   CanonicalOutputs canonical_outputs, int64_t now);

}  // namespace tharsis
