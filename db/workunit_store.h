// SQL for the workunit table, behind typed functions over WorkunitRow. Sharded fetches
// select id % shard.n = shard.id. `update_workunit_guarded` writes a plan's row only if the
// state columns still hold what was loaded, so a repeated or concurrent write is a no-op.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "db/database.h"
#include "db/row_changes.h"
#include "db/rows.h"
#include "db/shard.h"

namespace tharsis {

int64_t insert_workunit(Database& db, const WorkunitRow& wu);  // returns the new id
std::optional<WorkunitRow> fetch_workunit(Database& db, int64_t id, bool for_update = false);
// The workunits with these ids (those that still exist), by id, in one statement.
std::vector<WorkunitRow> fetch_workunits(Database& db, const std::vector<int64_t>& ids,
                                         bool for_update = false);
std::optional<WorkunitRow> fetch_workunit_by_name(Database& db, const std::string& name);
// The ids of an operand graph's workunits by name (index wu_graph).
std::unordered_map<std::string, int64_t> fetch_workunit_ids_of_graph(Database& db, int64_t graph_id);

// The ids of the workunits due for the transitioner (transition_time <= now, oldest
// first), flagged for the validator, and READY for the assimilator: read from their
// indexes alone; the daemons lock and read the rows themselves (db/locked_workunits.h).
std::vector<int64_t> fetch_due_workunit_ids(Database& db, int64_t now, Shard shard, int limit);
// In id order, only ids in (after_id, upto_id]: the daemons read on from where their last
// read ended (lib/daemon/cursor_read.h).
std::vector<int64_t> fetch_need_validate_ids(Database& db, Shard shard, int limit, int64_t after_id,
                                             int64_t upto_id);
std::vector<int64_t> fetch_assimilate_ready_ids(Database& db, Shard shard, int limit, int64_t after_id,
                                                int64_t upto_id);
// READY for the file deleter, except those whose deletion failed and waits in
// file_delete_retry until after `now` (so failing rows never fill a batch).
// In id order, only ids in (after_id, upto_id] (lib/daemon/cursor_read.h).
std::vector<WorkunitRow> fetch_file_delete_ready_workunits(Database& db, Shard shard, int limit, int64_t now,
                                                           int64_t after_id, int64_t upto_id);

// Writes every state variable and the mutable parameters (target_nresults, priority).
void update_workunit(Database& db, const WorkunitRow& wu);
// Same, only if the stored state still equals `before`'s; returns whether it wrote.
bool update_workunit_guarded(Database& db, const WorkunitRow& before, const WorkunitRow& after);
// The same for a set of updates (distinct rows) in one statement. Returns the rows that
// matched: updates.size() unless some changed meanwhile (then the caller rolls back and
// writes row by row to find which). An update whose canonical_credit is not finite is not
// written and not counted (a JSON number cannot hold it); the row-by-row write can.
int64_t update_workunits_guarded(Database& db, const std::vector<WorkunitUpdate>& updates);
// A held workunit (transition_time = never, no error) gets its final xml_doc and is due
// now, so the transitioner creates its results; false when it was not held.
bool release_held_workunit(Database& db, int64_t wu_id, const std::string& xml_doc, int64_t now);
// Sets the CANCELLED error bit and makes the workunit due now, unless it is assimilated
// already; the transitioner then ends it, and the scheduler aborts its results in flight.
bool mark_workunit_cancelled(Database& db, int64_t wu_id, int64_t now);

}  // namespace tharsis

namespace tharsis {
// Up to `limit` workunits with id > after_id, by id (tools/check walks the table).
std::vector<WorkunitRow> fetch_workunits_after(Database& db, int64_t after_id, int limit);
}  // namespace tharsis
