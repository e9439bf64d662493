// Cancelling an operand graph (tools/cancel_graph), one transaction: RUNNING ->
// CANCELLING, and each operand as state_on_cancel says — its workunit, unless already
// assimilated, gets the CANCELLED error bit and is due now, so the transitioner ends it
// (unsent results DIDNT_NEED) and the scheduler aborts results in flight at the hosts'
// next RPC. The graph scheduler then moves CANCELLING operands to CANCELLED as their
// workunits are assimilated, and the graph to CANCELLED when nothing is left running.
#pragma once

#include <cstdint>

#include "db/database.h"
#include "lib/result.h"

namespace tharsis {

// Errors: no such graph, or the graph is already DONE, FAILED or CANCELLED.
Status cancel_graph(Database& db, int64_t graph_id, int64_t now);

// One operand of a cancelled or failed graph, inside the caller's transaction: the state
// change of state_on_cancel and the workunit's CANCELLED bit. False if nothing changed.
bool cancel_operand(Database& db, int64_t operand_id, int64_t now);

}  // namespace tharsis
