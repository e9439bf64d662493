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
std::vector<ResultRow> fetch_file_delete_ready_results(Database& db, Shard shard, int limit);
// Results of `host_id` still IN_PROGRESS (for resending lost results).
std::vector<ResultRow> fetch_in_progress_results_of_host(Database& db, int64_t host_id);

// Writes every mutable column of the row.
void update_result(Database& db, const ResultRow& result);
bool update_result_guarded(Database& db, const ResultUpdate& update);

}  // namespace tharsis
