// The validator's rules of the back-end law (db/states.h: BOINC's state variables and their codes) as one
// pure function: given a workunit whose need_validate is set, its results, a comparator and
// the clock, say which result is canonical, which are valid, and what credit to grant.
// The daemon's shell loads the rows, calls plan_validation, writes the plan in one
// transaction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "daemons/validator/comparator.h"
#include "db/row_changes.h"
#include "db/rows.h"

namespace tharsis {

// After a transient read error the workunit is looked at again this much later at most
// (BOINC's validator uses six hours; a broken mount rarely heals sooner).
inline constexpr int64_t kValidatorRetryDelay = 6 * 3600;

// Credit to add to a host's and its owner's totals (total_credit, expavg_credit).
struct CreditGrant {
  int64_t result_id = 0;
  int64_t host_id = 0;
  int64_t user_id = 0;
  double credit = 0;
};

struct ValidationPlan {
  // The workunit as it should be written. Fields the validator may change: need_validate
  // (always false), canonical_resultid, canonical_credit, assimilate_state, error_mask,
  // target_nresults, transition_time.
  WorkunitRow workunit;
  // Results that change. Fields the validator may change: validate_state, outcome
  // (SUCCESS -> VALIDATE_ERROR), server_state (UNSENT -> OVER), granted_credit.
  std::vector<ResultUpdate> result_updates;
  std::vector<CreditGrant> credit_grants;
  // True when a transient error stopped the check: nothing was decided, need_validate is
  // cleared and transition_time brought forward to now + kValidatorRetryDelay at most, so
  // the transitioner sets need_validate again later.
  bool retry_later = false;
  // What happened, for the log (ids included).
  std::vector<std::string> notes;
};

// Number of agreeing results (the candidate included) that make a canonical result, given
// at least min_quorum readable candidates: BOINC's check_set takes a majority of the
// quorum, min_quorum / 2 + 1 (2 of 2, 2 of 3, 3 of 4).
int agreeing_results_needed(int min_quorum);

// Credit for a newly found canonical set, from the claimed credit of its VALID results:
// one result -> its claim; two -> the lower; more -> the mean without the highest and
// the lowest claim (BOINC's classic median_mean_credit: one cheater cannot inflate it).
double credit_for_valid_set(const std::vector<double>& claimed_credits);

// The rules:
// - No canonical result and error_mask != 0: nothing to validate; need_validate := false.
// - No canonical result: the candidates are OVER/SUCCESS results with validate_state INIT
//   or INCONCLUSIVE. With fewer than min_quorum candidates nothing happens. Otherwise each
//   candidate the comparator cannot read (permanent error) gets outcome VALIDATE_ERROR and
//   validate_state ERROR. If at least min_quorum readable candidates remain, the first (by
//   id) that agrees with agreeing_results_needed(min_quorum) of them (itself included)
//   becomes canonical: its agreeing set VALID, the other readable candidates INVALID,
//   canonical_credit = credit_for_valid_set(...), granted to each VALID result;
//   assimilate_state INIT -> READY; UNSENT results -> OVER/DIDNT_NEED; transition_time :=
//   now (results still in progress need their time-outs scheduled by the transitioner).
//   Without a consensus the readable candidates still INIT become INCONCLUSIVE; if
//   readable candidates > max_success_results, error_mask |= TOO_MANY_SUCCESS_RESULTS and
//   transition_time := now; if readable candidates >= target_nresults, target_nresults :=
//   readable candidates + 1 and transition_time := now (the transitioner makes another).
// - A canonical result exists: each other OVER/SUCCESS result with validate_state INIT or
//   INCONCLUSIVE is TOO_LATE if the canonical result's files are deleted or about to be
//   (file_delete_state != INIT); else VALIDATE_ERROR if unreadable (or if the canonical
//   output is unreadable: it cannot be checked, as in BOINC); else compared with the
//   canonical result: VALID (granted canonical_credit) or INVALID. If any was checked,
//   transition_time := now (it may have been the last one: file deletion can proceed).
// - Any result moved to VALIDATE_ERROR also sets transition_time := now (the transitioner
//   may need to replace it).
// - need_validate := false in every case.
// The caller must pass every result of the workunit, read in the same transaction.
ValidationPlan plan_validation(const WorkunitRow& wu, const std::vector<ResultRow>& results,
                               ResultComparator& comparator, int64_t now);

}  // namespace tharsis
