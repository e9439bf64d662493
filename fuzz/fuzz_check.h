// What every fuzz target shares: a contract check that stops the fuzzer with a message
// (libFuzzer saves the input as a crash reproducer), and the input as text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

// Aborts when `condition` is false: a broken contract is a finding like a crash.
#define FUZZ_CHECK(condition, detail)                                                                   \
  do {                                                                                                  \
    if (!(condition)) {                                                                                 \
      std::fprintf(stderr, "fuzz contract broken at %s:%d: %s\n  %s\n", __FILE__, __LINE__, #condition, \
                   std::string(detail).c_str());                                                        \
      std::abort();                                                                                     \
    }                                                                                                   \
  } while (0)

namespace tharsis::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// True when the input has bytes an XML renderer may not keep (control characters other
// than tab, newline and carriage return, which xml_escape drops) or a character reference
// (&#...;) that could decode to one: round-trip equality is only asserted without them.
inline bool has_unrenderable_xml_text(std::string_view text) {
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 && c != '\t' && c != '\n' && c != '\r') return true;
  }
  return text.find("&#") != std::string_view::npos;
}

// "at byte N: ...a... / ...b..." around the first byte where a and b differ, for messages.
inline std::string first_difference(std::string_view a, std::string_view b) {
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  const size_t from = at > 80 ? at - 80 : 0;
  return "at byte " + std::to_string(at) + ":\n" + std::string(a.substr(from, 160)) + "\n----\n" +
         std::string(b.substr(from, 160));
}

}  // namespace tharsis::fuzz
