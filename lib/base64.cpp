// Implementation of lib/base64.h.
#include "lib/base64.h"

#include <cstdint>

namespace tharsis {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int value_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                 static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                 static_cast<unsigned char>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(v >> shift) & 63];
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Result<std::string> base64_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t group = 0;
  int count = 0, padding = 0;
  bool ended = false;  // a padded group ends the data
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (ended) return make_error("base64: text after the padding");
    if (c == '=') {
      if (count < 2) return make_error("base64: '=' too early in a group");
      ++padding;
      group <<= 6;
    } else {
      int v = value_of(c);
      if (v < 0) return make_error("base64: unexpected character");
      if (padding > 0) return make_error("base64: a character after '='");
      group = group << 6 | static_cast<uint32_t>(v);
    }
    if (++count < 4) continue;
    out += static_cast<char>((group >> 16) & 255);
    if (padding < 2) out += static_cast<char>((group >> 8) & 255);
    if (padding < 1) out += static_cast<char>(group & 255);
    ended = padding > 0;
    group = 0;
    count = 0;
  }
  if (count != 0) return make_error("base64: the text is not a whole number of 4-character groups");
  return out;
}

}  // namespace tharsis
