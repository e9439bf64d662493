// Which host record a scheduler request speaks for, by its rpc_seqno (BOINC's rule, from
// authenticate_user in its sched/handle_request.cpp): a client counts its RPCs to a
// project up from 0, and the server keeps the last count. A request naming a host but
// counting lower than the server's count comes from a copy of that host's client state
// (a cloned disk, a restored backup) running on another computer: it gets a host record of
// its own, and what it reports is not taken for the original host. A negative count is
// never a client's: the request is refused.
#pragma once

#include <optional>

namespace tharsis {

enum class SeqnoVerdict {
  SameHost,     // the request goes on with the host it names
  CopiedState,  // a new host record for the copy; the named host's row is left alone
  Refused,      // error reply, nothing changed
};

// `stored_seqno`: the rpc_seqno stored for the host the request names, when that host
// exists and belongs to the request's account; nullopt otherwise (only the sign is judged).
SeqnoVerdict judge_rpc_seqno(int request_seqno, std::optional<int> stored_seqno);

// The rpc_seqno to store for the host the request ends up with. When the reply announces a
// host id (a new record, or one found by CPID), 0: the stock client starts its count again
// at 0 when it gets a host id (ours counts on, which is also fine); otherwise the request's.
int rpc_seqno_to_store(int request_seqno, bool host_id_announced);

}  // namespace tharsis
