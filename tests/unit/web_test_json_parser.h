// A minimal strict JSON parser for the web tests: checks that renderer output is valid JSON
// (RFC 8259 grammar, no trailing data) and gives it back as a tree to compare structurally.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tharsis::test {

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<JsonValue> items;
  std::map<std::string, JsonValue> members;

  const JsonValue& operator[](const std::string& key) const {
    auto it = members.find(key);
    if (kind != Kind::Object || it == members.end()) throw std::out_of_range("no member " + key);
    return it->second;
  }
  const JsonValue& operator[](size_t index) const { return items.at(index); }
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  JsonValue parse() {
    JsonValue value = parse_value();
    skip_space();
    if (pos_ != text_.size()) fail("trailing data");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  char peek() { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool consume_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  JsonValue parse_value() {
    skip_space();
    JsonValue value;
    const char c = peek();
    if (c == '{') {
      value.kind = JsonValue::Kind::Object;
      ++pos_;
      skip_space();
      if (peek() == '}') { ++pos_; return value; }
      for (;;) {
        skip_space();
        std::string key = parse_string();
        skip_space();
        expect(':');
        if (value.members.count(key)) fail("duplicate key " + key);
        value.members.emplace(key, parse_value());
        skip_space();
        if (peek() == ',') { ++pos_; continue; }
        expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.kind = JsonValue::Kind::Array;
      ++pos_;
      skip_space();
      if (peek() == ']') { ++pos_; return value; }
      for (;;) {
        value.items.push_back(parse_value());
        skip_space();
        if (peek() == ',') { ++pos_; continue; }
        expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.kind = JsonValue::Kind::String;
      value.text = parse_string();
      return value;
    }
    if (consume_word("true")) { value.kind = JsonValue::Kind::Bool; value.boolean = true; return value; }
    if (consume_word("false")) { value.kind = JsonValue::Kind::Bool; return value; }
    if (consume_word("null")) return value;
    return parse_number();
  }

  JsonValue parse_number() {
    const size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("expected a value");
    }
    if (peek() == '.') {
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("digit expected after '.'");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("digit expected in exponent");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    JsonValue value;
    value.kind = JsonValue::Kind::Number;
    value.number = std::stod(std::string(text_.substr(start, pos_ - start)));
    return value;
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in string");
      if (c != '\\') { out += c; continue; }
      const char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (pos_ + 4 > text_.size()) fail("short \\u escape");
          const unsigned code = static_cast<unsigned>(std::stoul(std::string(text_.substr(pos_, 4)), nullptr, 16));
          pos_ += 4;
          if (code >= 0x80) fail("test parser handles only ASCII \\u escapes");
          out += static_cast<char>(code);
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

inline JsonValue parse_json(std::string_view text) { return JsonParser(text).parse(); }

}  // namespace tharsis::test
