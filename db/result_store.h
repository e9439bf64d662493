// SQL for the result table, behind typed functions over ResultRow.
// `update_result_guarded` writes a rule's ResultUpdate only if the row's state columns
// still equal `before`'s, so a repeated or raced write changes nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "db/database.h"
#include "db/row_changes.h"
#include "db/rows.h"
#include "db/shard.h"

namespace tharsis {

int64_t insert_result(Database& db, const ResultRow& result);  // returns the new id
std::optional<ResultRow> fetch_result(Database& db, int64_t id, bool for_update = false);
std::optional<ResultRow> fetch_result_by_name(Database& db, const std::string& name, bool for_update = false);
std::vector<ResultRow> fetch_results_of_workunit(Database& db, int64_t wu_id, bool for_update = false);
// Results with file_delete_state READY, except the canonical result of a graph operand's
// current workunit while the operand may still need its output (not FREED/FATAL/CANCELLED).
std::vector<ResultRow> fetch_file_delete_ready_results(Database& db, Shard shard, int limit);
// Results of `host_id` still IN_PROGRESS (for resending lost results).
std::vector<ResultRow> fetch_in_progress_results_of_host(Database& db, int64_t host_id);

// Writes every mutable column of the row.
void update_result(Database& db, const ResultRow& result);
bool update_result_guarded(Database& db, const ResultUpdate& update);

}  // namespace tharsis

namespace tharsis {
// Results of workunits with ids in [first_wu, last_wu], ordered by workunit then id
// (tools/check walks the table in such ranges).
std::vector<ResultRow> fetch_results_of_workunit_range(Database& db, int64_t first_wu, int64_t last_wu);
}  // namespace tharsis

namespace tharsis {
// The scheduler's two writes to a result, guarded on its state so a duplicate is a no-op:
// send (UNSENT -> IN_PROGRESS to `host_id`, deadline now + delay_bound) and report
// (IN_PROGRESS for that host -> OVER with the client's outcome). Both poke the workunit's
// transition_time as the seed says (min(.., deadline) on send, now on report). Call them
// inside Database::transaction (they lock the workunit first, as the daemons do).
bool mark_result_sent(Database& db, int64_t result_id, int64_t host_id, int64_t user_id, int64_t now,
                      int delay_bound, int64_t app_version_id);
struct ResultReport {
  Outcome outcome = Outcome::Success;   // SUCCESS or CLIENT_ERROR
  ClientState client_state = ClientState::Uploaded;
  int exit_status = 0;
  double cpu_time = 0;
  double elapsed_time = 0;
  double claimed_credit = 0;
  std::string xml_doc_out;
  std::string stderr_out;
};
bool mark_result_reported(Database& db, int64_t result_id, int64_t host_id, int64_t now, const ResultReport& report);
}  // namespace tharsis
