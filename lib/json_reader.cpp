#include "lib/json_reader.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace tharsis {

JsonValue::JsonValue() = default;
JsonValue::JsonValue(const JsonValue&) = default;
JsonValue::JsonValue(JsonValue&&) noexcept = default;
JsonValue& JsonValue::operator=(const JsonValue&) = default;
JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;
JsonValue::~JsonValue() = default;

namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  Result<JsonValue> document() {
    JsonValue value;
    if (!read_value(value, 0)) return make_error(error_);
    skip_space();
    if (pos_ != text_.size()) return fail_result("unexpected data after the JSON value");
    return value;
  }

 private:
  Result<JsonValue> fail_result(const std::string& what) {
    fail(what);
    return make_error(error_);
  }
  bool fail(const std::string& what) {
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    error_ = "JSON line " + std::to_string(line) + ", column " + std::to_string(pos_ - line_start + 1) +
             ": " + what;
    return false;
  }
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool take(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  bool read_value(JsonValue& out, int depth) {
    if (depth > kMaxJsonDepth) return fail("nesting deeper than " + std::to_string(kMaxJsonDepth));
    skip_space();
    const char c = peek();
    if (c == '{') return read_object(out, depth);
    if (c == '[') return read_array(out, depth);
    if (c == '"') {
      out.kind = JsonValue::Kind::String;
      return read_string(out.text);
    }
    if (literal("true") || literal("false")) {
      out.kind = JsonValue::Kind::Bool;
      out.boolean = text_[pos_ - 4] == 't';
      return true;
    }
    if (literal("null")) return true;
    if (c == '-' || digit(c)) return read_number(out);
    return fail(c == '\0' ? "expected a value, found the end"
                          : std::string("expected a value, found '") + c + "'");
  }

  bool read_object(JsonValue& out, int depth) {
    out.kind = JsonValue::Kind::Object;
    ++pos_;
    if (take('}')) return true;
    do {
      skip_space();
      std::string key;
      if (peek() != '"') return fail("expected a member name in quotes");
      if (!read_string(key)) return false;
      if (out.find(key)) return fail("duplicate member \"" + key + "\"");
      if (!take(':')) return fail("expected ':' after \"" + key + "\"");
      JsonValue value;
      if (!read_value(value, depth + 1)) return false;
      out.members.emplace_back(std::move(key), std::move(value));
    } while (take(','));
    return take('}') || fail("expected ',' or '}' in object");
  }

  bool read_array(JsonValue& out, int depth) {
    out.kind = JsonValue::Kind::Array;
    ++pos_;
    if (take(']')) return true;
    do {
      JsonValue value;
      if (!read_value(value, depth + 1)) return false;
      out.items.push_back(std::move(value));
    } while (take(','));
    return take(']') || fail("expected ',' or ']' in array");
  }

  bool read_number(JsonValue& out) {
    const size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (!digit(peek())) return fail("expected a digit");
    if (peek() == '0' && pos_ + 1 < text_.size() && digit(text_[pos_ + 1]))
      return fail("leading zero in number");
    while (digit(peek())) ++pos_;
    if (peek() == '.') {
      ++pos_;
      if (!digit(peek())) return fail("expected a digit after '.'");
      while (digit(peek())) ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!digit(peek())) return fail("expected a digit in the exponent");
      while (digit(peek())) ++pos_;
    }
    out.kind = JsonValue::Kind::Number;
    out.number = std::strtod(std::string(text_.substr(start, pos_ - start)).c_str(), nullptr);
    // 1e999 would read as infinity, which no JSON text can spell back (found by fuzzing).
    if (!std::isfinite(out.number)) {
      pos_ = start;
      return fail("number out of range");
    }
    return true;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  bool read_string(std::string& out) {
    ++pos_;  // the opening quote
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character inside a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++pos_;
      const std::string_view simple = "\"\\/bfnrt";
      const std::string_view meaning = "\"\\/\b\f\n\r\t";
      if (const size_t at = simple.find(e); at != std::string_view::npos && e != '\0') {
        out += meaning[at];
      } else if (e == 'u' && pos_ + 4 <= text_.size()) {
        const std::string hex(text_.substr(pos_, 4));
        char* end = nullptr;
        const unsigned code = static_cast<unsigned>(std::strtoul(hex.c_str(), &end, 16));
        if (end != hex.c_str() + 4) return fail("bad \\u escape");
        pos_ += 4;
        append_utf8(out, code);  // surrogate pairs are kept as two code units (names are ASCII)
      } else {
        return fail("bad escape in string");
      }
    }
    return fail("unterminated string");
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [name, value] : members) {
    if (name == key) return &value;
  }
  return nullptr;
}

const JsonValue& JsonValue::at(std::string_view key) const {
  const JsonValue* value = find(key);
  if (value == nullptr)
    throw std::out_of_range("JSON " + std::string(json_kind_name(kind)) + " has no member '" +
                            std::string(key) + "'");
  return *value;
}

const JsonValue& JsonValue::at(size_t index) const {
  if (index >= items.size()) {
    throw std::out_of_range("JSON " + std::string(json_kind_name(kind)) + " has no item " +
                            std::to_string(index));
  }
  return items[index];
}

std::string_view json_kind_name(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::Null:
      return "null";
    case JsonValue::Kind::Bool:
      return "true/false";
    case JsonValue::Kind::Number:
      return "number";
    case JsonValue::Kind::String:
      return "string";
    case JsonValue::Kind::Array:
      return "array";
    case JsonValue::Kind::Object:
      return "object";
  }
  return "value";
}

Result<JsonValue> parse_json(std::string_view text) { return Reader(text).document(); }

}  // namespace tharsis
