// Implementation of lib/protocol/utf8.h.
#include "lib/protocol/utf8.h"

namespace tharsis {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// Length of the well-formed sequence at text[i], or 0 when there is none; then *bad is the
// length of the maximal ill-formed subpart to replace (at least 1). Table 3-7 of the
// Unicode standard: the second byte's range depends on the first.
size_t sequence_at(std::string_view text, size_t i, size_t* bad) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  *bad = 1;
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong below U+0800
    if (lead == 0xED) high = 0x9F;  // surrogates U+D800..U+DFFF
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong below U+10000
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // 0x80..0xC1 (stray continuation, overlong lead), 0xF5..0xFF
  }
  size_t k = 1;
  for (; k < length && i + k < text.size(); ++k) {
    unsigned char b = byte(i + k);
    bool ok = k == 1 ? (b >= low && b <= high) : is_continuation(b);
    if (!ok) break;
  }
  if (k == length) return length;
  *bad = k;  // the valid prefix of a truncated sequence is one ill-formed subpart
  return 0;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t bad = 0;
    size_t length = sequence_at(text, i, &bad);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string valid_utf8_or_replaced(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    size_t bad = 0;
    size_t length = sequence_at(text, i, &bad);
    if (length > 0) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out.append(kReplacement);
      i += bad;
    }
  }
  return out;
}

std::string nul_replaced(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    if (c == '\0') {
      out.append(kReplacement);
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view utf8_prefix_bytes(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  while (end > 0 && is_continuation(static_cast<unsigned char>(text[end]))) --end;
  return text.substr(0, end);
}

std::string_view utf8_prefix_chars(std::string_view text, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (is_continuation(static_cast<unsigned char>(text[i]))) continue;
    if (chars == max_chars) return text.substr(0, i);
    ++chars;
  }
  return text;
}

}  // namespace tharsis
