// For db/*.cpp only: the subquery that finds the workunit of a result still taking its
// report (sched/lib/result_acceptance.h: in progress, or timed out — NO_REPLY, CLIENT_DETACHED —
// and then decided under the workunit's lock by the write), shared by the statements
// that lock reported results' workunits (db/result_store.cpp, db/host_store.cpp). A plain
// consistent read under READ COMMITTED, also inside a SELECT .. FOR UPDATE: it locks no
// result row, so the workunit is the first row of the pair locked.
#pragma once

#include <string>

#include "db/sql.h"
#include "db/states.h"

namespace tharsis {

// The workunit id of the result x picked by `which` (a condition on x: its name or id)
// sent to host `host_expr` (an SQL expression), NULL when it takes no report; four
// placeholders after those of `which` and `host_expr`, bound by bind_reportable_states.
inline std::string reportable_result_workunit(const std::string& which, const std::string& host_expr) {
  return "(SELECT x.workunitid FROM result x WHERE " + which + " AND x.hostid = " + host_expr +
         " AND (x.server_state = ? OR (x.server_state = ? AND x.outcome IN (?, ?))))";
}

inline void bind_reportable_states(sql::PreparedStatement& st, int first) {
  sql_bind::bind_all(st, first, ServerState::InProgress, ServerState::Over, Outcome::NoReply,
                     Outcome::ClientDetached);
}

}  // namespace tharsis
