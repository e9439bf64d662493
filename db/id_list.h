// A list of row ids bound as ONE statement parameter, so a batch of any size reads its rows
// in one prepared statement (one cached text): the ids go in as a JSON array and
// kIdListTable turns it into a table `wanted(id)` to join on its `id` column. The join
// reads each wanted row by its index (eq_ref / ref), so FOR UPDATE locks only those rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tharsis {

// FROM kIdListTable STRAIGHT_JOIN t ON t.key = wanted.wanted_id (STRAIGHT_JOIN: the list
// drives the join, never a scan of t).
inline const std::string kIdListTable = "JSON_TABLE(?, '$[*]' COLUMNS (wanted_id BIGINT PATH '$')) wanted";

inline std::string id_list_json(const std::vector<int64_t>& ids) {
  std::string json = "[";
  for (size_t i = 0; i < ids.size(); ++i) json += (i ? "," : "") + std::to_string(ids[i]);
  return json + "]";
}

}  // namespace tharsis
