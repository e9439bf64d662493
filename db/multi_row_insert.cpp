// Implementation of db/multi_row_insert.h.
#include "db/multi_row_insert.h"

namespace tharsis {

std::string multi_row_insert(const std::string& head, int fields, size_t rows) {
  std::string row(static_cast<size_t>(2 * fields + 1), '?');  // "(?,?,..,?)"
  row.front() = '(';
  for (int i = 1; i < fields; ++i) row[static_cast<size_t>(2 * i)] = ',';
  row.back() = ')';
  std::string sql(head);
  sql.reserve(sql.size() + rows * (row.size() + 1));
  for (size_t r = 0; r < rows; ++r) {
    if (r) sql.push_back(',');
    sql.append(row);
  }
  return sql;
}

}  // namespace tharsis
