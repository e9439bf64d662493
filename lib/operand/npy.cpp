#include "lib/operand/npy.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>

#include "lib/text_file.h"

namespace tharsis::operand {

namespace {

static_assert(std::endian::native == std::endian::little, "chunk files are little-endian doubles");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// A header larger than this is not a chunk file (protects against hostile lengths).
constexpr size_t kMaxHeaderBytes = 64 * 1024;

// The header dictionary's shape as Python writes it: "(400, 400)", "(7,)", "()".
std::string python_shape(const Shape& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

// Finds `'key':` in the header dictionary and returns the position after it.
Result<size_t> value_of(const std::string& header, const std::string& key, const std::string& where) {
  const std::string quoted = "'" + key + "':";
  const size_t at = header.find(quoted);
  if (at == std::string::npos) return make_error(where + ": .npy header has no '" + key + "'");
  size_t pos = at + quoted.size();
  while (pos < header.size() && header[pos] == ' ') ++pos;
  return pos;
}

Result<Shape> parse_python_shape(const std::string& header, size_t pos, const std::string& where) {
  auto bad = [&]() -> Result<Shape> {
    return make_error(where + ": .npy shape is not a tuple of integers: " + header.substr(pos, 40));
  };
  if (pos >= header.size() || header[pos] != '(') return bad();
  const size_t close = header.find(')', pos);
  if (close == std::string::npos) return bad();
  Shape shape;
  size_t i = pos + 1;
  while (i < close) {
    while (i < close && (header[i] == ' ' || header[i] == ',')) ++i;
    if (i == close) break;
    if (header[i] < '0' || header[i] > '9') return bad();
    int64_t extent = 0;
    while (i < close && header[i] >= '0' && header[i] <= '9') {
      if (extent > (int64_t{1} << 40)) return bad();
      extent = extent * 10 + (header[i++] - '0');
    }
    shape.push_back(extent);
  }
  return shape;
}

// The header of a .npy file in `bytes` (the whole file, or at least its header).
struct NpyHeader {
  Shape shape;
  size_t data_start = 0;
};

Result<NpyHeader> parse_npy_header(const std::string& bytes, const std::string& where) {
  if (bytes.size() < kMagicSize + 4 || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0) {
    return make_error(where + ": not a .npy file (no \\x93NUMPY magic)");
  }
  const auto byte = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(bytes[i])); };
  const size_t major = byte(6);
  size_t header_size = 0;
  size_t header_start = 0;
  if (major == 1) {
    header_size = byte(8) | byte(9) << 8;
    header_start = 10;
  } else if (major == 2 && bytes.size() >= 12) {
    header_size = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    header_start = 12;
  } else {
    return make_error(where + ": .npy version " + std::to_string(major) + " is not supported (1 or 2)");
  }
  if (header_size > kMaxHeaderBytes || header_start + header_size > bytes.size()) {
    return make_error(where + ": .npy header length " + std::to_string(header_size) + " exceeds the file");
  }
  const std::string header = bytes.substr(header_start, header_size);
  auto descr = value_of(header, "descr", where);
  if (!descr.ok()) return Error{descr.error()};
  if (header.compare(*descr, 5, "'<f8'") != 0) {
    return make_error(where + ": .npy dtype must be '<f8' (little-endian float64), found " +
                      header.substr(*descr, 8));
  }
  auto fortran = value_of(header, "fortran_order", where);
  if (!fortran.ok()) return Error{fortran.error()};
  if (header.compare(*fortran, 5, "False") != 0) {
    return make_error(where + ": .npy must be in C order (fortran_order False)");
  }
  auto shape_at = value_of(header, "shape", where);
  if (!shape_at.ok()) return Error{shape_at.error()};
  auto shape = parse_python_shape(header, *shape_at, where);
  if (!shape.ok()) return Error{shape.error()};
  return NpyHeader{*shape, header_start + header_size};
}

// The element count of `shape` if `data_bytes` hold exactly that many doubles.
Result<size_t> check_data_size(const Shape& shape, size_t data_bytes, const std::string& where) {
  // Multiply with a bound so a hostile shape cannot overflow.
  size_t count = 1;
  bool too_big = false;
  for (int64_t extent : shape) {
    const auto e = static_cast<size_t>(extent);
    if (e != 0 && count > data_bytes / e) too_big = true;
    count = too_big ? count : count * e;
  }
  if (too_big || data_bytes != count * sizeof(double)) {
    return make_error(where + ": .npy shape " + shape_text(shape) + " does not match the " +
                      std::to_string(data_bytes) + " data bytes of the file");
  }
  return count;
}

}  // namespace

std::string encode_npy(const NdArray& array) {
  std::string header =
      "{'descr': '<f8', 'fortran_order': False, 'shape': " + python_shape(array.shape) + ", }";
  // Pad with spaces and a final newline so the data starts on a 64-byte boundary.
  const size_t unpadded = kMagicSize + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string bytes(kMagic, kMagicSize);
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  const size_t data_bytes = array.data.size() * sizeof(double);
  const size_t start = bytes.size();
  bytes.resize(start + data_bytes);
  if (data_bytes > 0) std::memcpy(bytes.data() + start, array.data.data(), data_bytes);
  return bytes;
}

Result<NdArray> decode_npy(const std::string& bytes, const std::string& where) {
  auto header = parse_npy_header(bytes, where);
  if (!header.ok()) return Error{header.error()};
  auto count = check_data_size(header->shape, bytes.size() - header->data_start, where);
  if (!count.ok()) return Error{count.error()};
  NdArray array;
  array.shape = header->shape;
  array.data.resize(*count);
  if (*count > 0) std::memcpy(array.data.data(), bytes.data() + header->data_start, *count * sizeof(double));
  return array;
}

Result<Shape> read_npy_shape(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<size_t>(in.tellg());
  in.seekg(0);
  std::string start(std::min(size, kMagicSize + 6 + kMaxHeaderBytes), '\0');
  if (!in.read(start.data(), static_cast<std::streamsize>(start.size())))
    return make_error(path + ": cannot read");
  auto header = parse_npy_header(start, path);
  if (!header.ok()) return Error{header.error()};
  auto count = check_data_size(header->shape, size - header->data_start, path);
  if (!count.ok()) return Error{count.error()};
  return header->shape;
}

Result<NdArray> read_npy(const std::string& path) {
  auto bytes = read_text_file(path);
  if (!bytes.ok()) return Error{bytes.error()};
  return decode_npy(*bytes, path);
}

Status write_npy(const std::string& path, const NdArray& array) {
  return write_text_file(path, encode_npy(array));
}

}  // namespace tharsis::operand
