// The assimilator's rules: assimilate a READY workunit, or withdraw a canonical result
// whose files are not what it reported. See assimilator_rules.h for the contract.
#include "daemons/assimilator/assimilator_rules.h"

namespace tharsis {
namespace {

std::string wu_text(const WorkunitRow& wu) {
  return "workunit " + std::to_string(wu.id) + " (" + wu.name + ")";
}

void withdraw_canonical(const WorkunitRow& wu, const std::vector<ResultRow>& results, int64_t now,
                        AssimilationPlan& plan) {
  WorkunitRow& w = plan.workunit;
  int left_to_weigh = 0;
  for (const ResultRow& r : results) {
    ResultRow after = r;
    if (r.id == wu.canonical_resultid) {
      after.outcome = Outcome::ValidateError;
      after.validate_state = ValidateState::Error;
      after.granted_credit = 0;
      plan.notes.push_back(wu_text(wu) + ": canonical result " + std::to_string(r.id) + " (host " +
                           std::to_string(r.hostid) +
                           ") has output files that differ from its report: withdrawn, VALIDATE_ERROR");
    } else if (r.validate_state == ValidateState::Valid || r.validate_state == ValidateState::Invalid) {
      after.validate_state = ValidateState::Init;
      after.granted_credit = 0;
    }
    if (after.server_state == ServerState::Over && after.outcome == Outcome::Success &&
        (after.validate_state == ValidateState::Init ||
         after.validate_state == ValidateState::Inconclusive)) {
      ++left_to_weigh;
    }
    if (after.outcome != r.outcome || after.validate_state != r.validate_state ||
        after.granted_credit != r.granted_credit) {
      plan.result_updates.push_back(ResultUpdate{r, after});
    }
    if (const double taken_back = r.granted_credit - after.granted_credit; taken_back > 0)
      plan.credit_changes.push_back(CreditChange{r.hostid, r.userid, -taken_back});
  }
  w.canonical_resultid = 0;
  w.canonical_credit = 0;
  w.assimilate_state = AssimilateState::Init;
  w.transition_time = now;  // the transitioner sets need_validate or makes replacements
  plan.notes.push_back(wu_text(wu) + ": back to validation with " + std::to_string(left_to_weigh) +
                       " result(s) to weigh again");
}

}  // namespace

const ResultRow* canonical_result(const WorkunitRow& wu, const std::vector<ResultRow>& results) {
  if (wu.canonical_resultid == 0) return nullptr;
  for (const ResultRow& r : results) {
    if (r.id == wu.canonical_resultid) return &r;
  }
  return nullptr;
}

AssimilationPlan plan_assimilation(const WorkunitRow& wu, const std::vector<ResultRow>& results,
                                   CanonicalOutputs canonical_outputs, int64_t now) {
  AssimilationPlan plan;
  plan.workunit = wu;
  if (wu.assimilate_state != AssimilateState::Ready) return plan;
  const bool has_canonical = wu.canonical_resultid != 0;
  if (has_canonical && canonical_outputs == CanonicalOutputs::Unreadable) {
    plan.action = AssimilationAction::RetryLater;
    plan.notes.push_back(wu_text(wu) + ": canonical output unreadable for now; left READY");
    return plan;
  }
  if (canonical_result(wu, results) != nullptr && canonical_outputs == CanonicalOutputs::Mismatch) {
    plan.action = AssimilationAction::WithdrawCanonical;
    withdraw_canonical(wu, results, now, plan);
    return plan;
  }
  plan.action = AssimilationAction::Assimilate;
  plan.workunit.assimilate_state = AssimilateState::Done;
  plan.workunit.transition_time = now;
  return plan;
}

}  // namespace tharsis
