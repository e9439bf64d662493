// Whether a result still takes its host's output: its uploads (the upload handler) and its
// report (the scheduler). One rule for both, so a late result whose report would be
// accepted can also upload its files, and nothing else can.
//  - IN_PROGRESS: the normal case.
//  - OVER with outcome NO_REPLY (or CLIENT_DETACHED), while its workunit is still
//    unfinished (no canonical result, no error, not yet assimilated): a late result. BOINC
//    keeps such a result ("result is late in arriving, but keep it anyhow"); we keep it
//    only while it can still help the workunit reach its quorum, so a workunit that is
//    done never changes again.
//  - Anything else (reported, validated, not needed, never sent): refused. In particular
//    an output can never be replaced once its result is reported.
#pragma once

#include <cstdint>

#include "db/states.h"

namespace tharsis {

struct ResultAcceptanceView {
  ServerState server_state = ServerState::Unsent;
  Outcome outcome = Outcome::Init;
  int64_t wu_canonical_resultid = 0;
  int wu_error_mask = 0;
  AssimilateState wu_assimilate_state = AssimilateState::Init;
};

enum class ResultAcceptance { InProgress, Late, Refused };

ResultAcceptance result_acceptance(const ResultAcceptanceView& result);

inline bool takes_output(const ResultAcceptanceView& result) {
  return result_acceptance(result) != ResultAcceptance::Refused;
}

}  // namespace tharsis
