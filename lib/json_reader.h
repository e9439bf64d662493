// A strict JSON reader (RFC 8259) for documents submitters hand in, such as the JSON
// form of an operand graph. Objects keep their members in document order (later members
// may refer to earlier ones); duplicate keys, trailing data and nesting deeper than
// kMaxJsonDepth are errors that give the line and column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/result.h"

namespace tharsis {

inline constexpr int kMaxJsonDepth = 64;

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<JsonValue> items;                            // Array
  std::vector<std::pair<std::string, JsonValue>> members;  // Object, in document order

  // Defined in the .cpp, where JsonValue is complete: clang with libstdc++ refuses to
  // instantiate vector<pair<string, JsonValue>>'s destructor inside the class.
  JsonValue();
  JsonValue(const JsonValue&);
  JsonValue(JsonValue&&) noexcept;
  JsonValue& operator=(const JsonValue&);
  JsonValue& operator=(JsonValue&&) noexcept;
  ~JsonValue();

  // The member named `key`, or nullptr (also when this is not an object).
  const JsonValue* find(std::string_view key) const;
  // The member named `key` / the item at `index`; std::out_of_range naming the key or
  // index when there is none (also when this is not an object / array).
  const JsonValue& at(std::string_view key) const;
  const JsonValue& at(size_t index) const;
};

// "object", "array", "string", "number", "true/false", "null": for error messages.
std::string_view json_kind_name(JsonValue::Kind kind);

Result<JsonValue> parse_json(std::string_view text);

}  // namespace tharsis
