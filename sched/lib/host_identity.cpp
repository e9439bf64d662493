// Implementation of sched/lib/host_identity.h.
#include "sched/lib/host_identity.h"

namespace tharsis {

SeqnoVerdict judge_rpc_seqno(int request_seqno, std::optional<int> stored_seqno) {
  if (request_seqno < 0) return SeqnoVerdict::Refused;
  // Equal is the same host: a client whose reply was lost sends the next count, but one
  // retried by hand or replayed by a proxy may repeat it (BOINC takes it too).
  if (stored_seqno && request_seqno < *stored_seqno) return SeqnoVerdict::CopiedState;
  return SeqnoVerdict::SameHost;
}

int rpc_seqno_to_store(int request_seqno, bool host_id_announced) {
  return host_id_announced ? 0 : request_seqno;
}

}  // namespace tharsis
