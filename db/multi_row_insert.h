// Multi-row INSERT statements for batches of any size: the text for `rows` rows, and how
// many rows the next statement of a batch takes. Row counts are kMaxRowsPerStatement,
// then powers of two for the rest, so a connection caches a handful of statement texts,
// not one per remainder; a statement also stops at about kMaxBytesPerStatement of bound
// text so it stays well under MariaDB's max_allowed_packet (16 MiB by default).
#pragma once

#include <cstddef>
#include <string>

namespace tharsis {

inline constexpr size_t kMaxRowsPerStatement = 256;
inline constexpr size_t kMaxBytesPerStatement = 4u << 20;

// "<head>(?,..,?),(?,..,?)": `head` ends with "VALUES ", each row has `fields` placeholders.
std::string multi_row_insert(const std::string& head, int fields, size_t rows);

// The rows of the next statement: at most `left`, kMaxRowsPerStatement and, when
// `row_bytes(i)` (the text bound for row i of what is left) is given, as many as fit in
// kMaxBytesPerStatement (at least one) — rounded down to a power of two below the maximum.
template <class RowBytes>
size_t next_statement_rows(size_t left, const RowBytes& row_bytes) {
  size_t fit = 0;
  size_t bytes = 0;
  while (fit < left && fit < kMaxRowsPerStatement) {
    bytes += row_bytes(fit);
    if (fit > 0 && bytes > kMaxBytesPerStatement) break;
    ++fit;
  }
  if (fit == kMaxRowsPerStatement) return fit;
  size_t rows = 1;
  while (rows * 2 <= fit) rows *= 2;
  return rows;
}

inline size_t next_statement_rows(size_t left) {
  return next_statement_rows(left, [](size_t) { return size_t{0}; });
}

}  // namespace tharsis
