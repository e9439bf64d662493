#include "lib/operand/nd_array.h"

#include <charconv>

namespace tharsis::operand {

int64_t element_count(const Shape& shape) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

bool element_count_within(const Shape& shape, int64_t limit) {
  int64_t count = 1;
  for (int64_t extent : shape) {
    if (extent < 0) return false;
    if (extent != 0 && count > limit / extent) return false;
    count *= extent;
  }
  return count <= limit;
}

std::string shape_text(const Shape& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + ")";
}

Result<Shape> parse_shape_text(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') {
    return make_error("expected a shape like (400,400) or (), found '" + text + "'");
  }
  Shape shape;
  const std::string body = text.substr(1, text.size() - 2);
  if (body.empty()) return shape;
  size_t start = 0;
  while (start <= body.size()) {
    const size_t comma = std::min(body.find(',', start), body.size());
    int64_t extent = -1;
    const char* first = body.data() + start;
    const char* last = body.data() + comma;
    auto [end, ec] = std::from_chars(first, last, extent);
    if (ec != std::errc() || end != last || extent < 0) {
      return make_error("shape '" + text + "': expected non-negative integer extents, found '" +
                        std::string(first, last) + "'");
    }
    shape.push_back(extent);
    start = comma + 1;
  }
  return shape;
}

int64_t flat_index(const Shape& shape, const Shape& position) {
  int64_t index = 0;
  for (size_t axis = 0; axis < shape.size(); ++axis) index = index * shape[axis] + position[axis];
  return index;
}

Shape unflatten_index(const Shape& shape, int64_t index) {
  Shape position(shape.size(), 0);
  for (size_t axis = shape.size(); axis-- > 0;) {
    position[axis] = index % shape[axis];
    index /= shape[axis];
  }
  return position;
}

std::optional<Shape> broadcast_shape(const Shape& a, const Shape& b) {
  const Shape& longer = a.size() >= b.size() ? a : b;
  const Shape& shorter = a.size() >= b.size() ? b : a;
  Shape out = longer;
  const size_t skip = longer.size() - shorter.size();
  for (size_t k = 0; k < shorter.size(); ++k) {
    const int64_t x = longer[skip + k];
    const int64_t y = shorter[k];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[skip + k] = x == 1 ? y : x;
  }
  return out;
}

NdArray filled(const Shape& shape, double value) {
  return NdArray{shape, std::vector<double>(static_cast<size_t>(element_count(shape)), value)};
}

}  // namespace tharsis::operand
