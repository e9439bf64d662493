// NdArray: a dense C-order array of doubles, the value every chunk operand consumes and
// produces (and what a .npy chunk file holds). Shape helpers shared by the graph code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/result.h"

namespace tharsis::operand {

// Extent of each axis; empty = a 0-d array holding one value.
using Shape = std::vector<int64_t>;

// Bounds on what any file, spec or expression may ask for.
inline constexpr size_t kMaxRank = 8;
inline constexpr int64_t kMaxChunkElements = int64_t{1} << 26;  // 512 MiB of doubles

struct NdArray {
  Shape shape;
  std::vector<double> data;  // C order, element_count(shape) values

  bool operator==(const NdArray&) const = default;
};

// Product of the extents (1 for a 0-d shape).
int64_t element_count(const Shape& shape);

// True when every extent is >= 0 and the element count is at most `limit` (no overflow
// on hostile shapes).
bool element_count_within(const Shape& shape, int64_t limit);

// "(400,400)", "(7)", "()" — the form used in spec files and error messages.
std::string shape_text(const Shape& shape);
// Inverse of shape_text; extents must be >= 0.
Result<Shape> parse_shape_text(const std::string& text);

// Flat C-order index of `position` in an array of `shape` (sizes must match).
int64_t flat_index(const Shape& shape, const Shape& position);
// The position of flat C-order index `index` in `shape`.
Shape unflatten_index(const Shape& shape, int64_t index);

// numpy's broadcast of two shapes (aligned from the right; on each axis the extents are
// equal or one of them is 1), or nullopt when they do not broadcast.
std::optional<Shape> broadcast_shape(const Shape& a, const Shape& b);

// An array of `shape` filled with `value`.
NdArray filled(const Shape& shape, double value);

}  // namespace tharsis::operand
