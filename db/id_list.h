// A list of row ids (or file names) bound as ONE statement parameter, so a batch of any size reads its rows
// in one prepared statement (one cached text): the ids go in as a JSON array and
// kIdListTable turns it into a table `wanted(id)` to join on its `id` column. The join
// reads each wanted row by its index (eq_ref / ref), so FOR UPDATE locks only those rows.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tharsis {

// FROM kIdListTable STRAIGHT_JOIN t ON t.key = wanted.wanted_id (STRAIGHT_JOIN: the list
// drives the join, never a scan of t).
inline const std::string kIdListTable = "JSON_TABLE(?, '$[*]' COLUMNS (wanted_id BIGINT PATH '$')) wanted";

// The same for names: kNameListTable is a table `wanted(wanted_name)`.
inline const std::string kNameListTable =
    "JSON_TABLE(?, '$[*]' COLUMNS (wanted_name VARCHAR(254) PATH '$')) wanted";

inline std::string id_list_json(const std::vector<int64_t>& ids) {
  std::string json = "[";
  for (size_t i = 0; i < ids.size(); ++i) json += (i ? "," : "") + std::to_string(ids[i]);
  return json + "]";
}

// A JSON string; quotes, backslashes and control characters escaped.
inline std::string json_string(const std::string& text) {
  std::string json = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      json += '\\';
      json += static_cast<char>(c);
    } else if (c < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      json += "\\u00";
      json += kHex[c >> 4];
      json += kHex[c & 15];
    } else {
      json += static_cast<char>(c);
    }
  }
  return json + '"';
}

// A JSON array of strings (json_string each).
inline std::string name_list_json(const std::vector<std::string>& names) {
  std::string json = "[";
  for (size_t i = 0; i < names.size(); ++i) json += (i ? "," : "") + json_string(names[i]);
  return json + "]";
}

// A double as a JSON number that reads back as the same double (17 significant digits);
// JSON has no infinity or NaN: callers check std::isfinite first.
inline std::string json_double(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace tharsis
