// Fuzz target: the strict JSON reader (parse_json) that reads submitters' documents.
// Contract checked: errors are values with a message; a parsed value nests at most
// kMaxJsonDepth deep, has no duplicate keys and only finite numbers; written back as JSON
// it parses to the same value.
#include <cmath>
#include <cstdio>
#include <set>

#include "fuzz/fuzz_check.h"
#include "lib/json_reader.h"
#include "lib/web/json_writer.h"

using namespace tharsis;

namespace {

void write(const JsonValue& value, std::string& out) {
  switch (value.kind) {
    case JsonValue::Kind::Null:
      out += "null";
      break;
    case JsonValue::Kind::Bool:
      out += value.boolean ? "true" : "false";
      break;
    case JsonValue::Kind::Number: {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.17g", value.number);
      out += buffer;
      break;
    }
    case JsonValue::Kind::String:
      out += json_quote(value.text);
      break;
    case JsonValue::Kind::Array:
      out += '[';
      for (size_t i = 0; i < value.items.size(); ++i) {
        if (i > 0) out += ',';
        write(value.items[i], out);
      }
      out += ']';
      break;
    case JsonValue::Kind::Object:
      out += '{';
      for (size_t i = 0; i < value.members.size(); ++i) {
        if (i > 0) out += ',';
        out += json_quote(value.members[i].first);
        out += ':';
        write(value.members[i].second, out);
      }
      out += '}';
      break;
  }
}

void check(const JsonValue& value, int depth) {
  FUZZ_CHECK(depth <= kMaxJsonDepth, "nested deeper than the limit");
  if (value.kind == JsonValue::Kind::Number) FUZZ_CHECK(std::isfinite(value.number), "a non-finite number");
  std::set<std::string> keys;
  for (const auto& [key, member] : value.members) {
    FUZZ_CHECK(keys.insert(key).second, "duplicate key " + key);
    check(member, depth + 1);
  }
  for (const auto& item : value.items) check(item, depth + 1);
}

bool same(const JsonValue& a, const JsonValue& b) {
  if (a.kind != b.kind || a.boolean != b.boolean || a.number != b.number || a.text != b.text) return false;
  if (a.items.size() != b.items.size() || a.members.size() != b.members.size()) return false;
  for (size_t i = 0; i < a.items.size(); ++i) {
    if (!same(a.items[i], b.items[i])) return false;
  }
  for (size_t i = 0; i < a.members.size(); ++i) {
    if (a.members[i].first != b.members[i].first || !same(a.members[i].second, b.members[i].second))
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto value = parse_json(fuzz::as_text(data, size));
  if (!value.ok()) {
    FUZZ_CHECK(!value.error().empty(), "an error without a message");
    return 0;
  }
  check(*value, 1);
  std::string written;
  write(*value, written);
  auto again = parse_json(written);
  FUZZ_CHECK(again.ok(), "written value does not parse: " + again.error() + "\n" + written.substr(0, 2000));
  FUZZ_CHECK(same(*again, *value), "value changed in the round trip:\n" + written.substr(0, 2000));
  return 0;
}
