// Multi-row INSERT statements for batches of any size: the text for `rows` rows, and how
// many rows the next statement of a batch takes. Row counts are kMaxRowsPerStatement,
// then powers of two for the rest, so a connection caches a handful of statement texts,
// not one per remainder; a statement also stops at about kMaxBytesPerStatement of bound
// text so it stays well under MariaDB's max_allowed_packet (16 MiB by default).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/sql.h"

namespace tharsis {

inline constexpr size_t kMaxRowsPerStatement = 256;
inline constexpr size_t kMaxBytesPerStatement = 4u << 20;

// "<head>(?,..,?),(?,..,?)": `head` ends with "VALUES ", each row has `fields` placeholders.
std::string multi_row_insert(const std::string& head, int fields, size_t rows);

// How many of the `left` rows fit one statement: at most kMaxRowsPerStatement, and as
// many as fit in kMaxBytesPerStatement by `row_bytes(i)` (the text bound for row i of
// what is left), at least one.
template <class RowBytes>
size_t rows_that_fit(size_t left, const RowBytes& row_bytes) {
  size_t fit = 0;
  size_t bytes = 0;
  while (fit < left && fit < kMaxRowsPerStatement) {
    bytes += row_bytes(fit);
    if (fit > 0 && bytes > kMaxBytesPerStatement) break;
    ++fit;
  }
  return fit;
}

// The rows of the next statement: rows_that_fit, rounded down to a power of two below the
// maximum (so that a connection caches a handful of statement texts).
template <class RowBytes>
size_t next_statement_rows(size_t left, const RowBytes& row_bytes) {
  const size_t fit = rows_that_fit(left, row_bytes);
  if (fit == kMaxRowsPerStatement) return fit;
  size_t rows = 1;
  while (rows * 2 <= fit) rows *= 2;
  return rows;
}

// Inserts `rows` in as few statements as the rules above allow: `head` as for
// multi_row_insert, `bind(statement, index, row)` binds one row's `fields` values from
// `index` on (advancing it), `row_bytes(row)` is the text a row binds. Returns the rows
// the server reports inserted.
template <class Row, class Bind, class RowBytes>
int64_t insert_rows(Database& db, const std::string& head, int fields, const std::vector<Row>& rows,
                    const Bind& bind, const RowBytes& row_bytes) {
  int64_t inserted = 0;
  size_t done = 0;
  while (done < rows.size()) {
    const size_t n =
        next_statement_rows(rows.size() - done, [&](size_t i) { return row_bytes(rows[done + i]); });
    inserted += exec_bound(db, multi_row_insert(head, fields, n), [&](sql::PreparedStatement& st) {
      int index = 1;
      for (size_t r = 0; r < n; ++r) bind(st, index, rows[done + r]);
    });
    done += n;
  }
  return inserted;
}

}  // namespace tharsis
