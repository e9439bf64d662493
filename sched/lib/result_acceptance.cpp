// Implementation of sched/lib/result_acceptance.h.
#include "sched/lib/result_acceptance.h"

namespace tharsis {

ResultAcceptance result_acceptance(const ResultAcceptanceView& r) {
  if (r.server_state == ServerState::InProgress) return ResultAcceptance::InProgress;
  bool timed_out = r.server_state == ServerState::Over &&
                   (r.outcome == Outcome::NoReply || r.outcome == Outcome::ClientDetached);
  bool workunit_open =
      r.wu_canonical_resultid == 0 && r.wu_error_mask == 0 && r.wu_assimilate_state == AssimilateState::Init;
  return timed_out && workunit_open ? ResultAcceptance::Late : ResultAcceptance::Refused;
}

}  // namespace tharsis
