// JsonWriter: a small streaming writer of correct JSON for the status pages' machine form
// (format=json). It places commas itself, escapes every string (quotes, backslashes and
// all control characters), and writes non-finite numbers as null, which JSON has no
// spelling for. Misuse (a value where a key is due, unbalanced ends) throws logic_error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tharsis {

// The JSON string literal for `text`, with the surrounding quotes.
std::string json_quote(std::string_view text);

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);  // inside an object, before each value
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(int64_t number);
  JsonWriter& value(int number) { return value(static_cast<int64_t>(number)); }
  JsonWriter& value(double number);
  JsonWriter& value(bool flag);
  JsonWriter& null();

  // The finished document; throws logic_error if objects or arrays are still open.
  const std::string& str() const;

 private:
  enum class Frame { Object, Array };
  void before_value();
  std::string out_;
  std::vector<Frame> stack_;
  std::vector<bool> first_;   // per open frame: nothing written in it yet
  bool key_pending_ = false;  // a key was written, its value is due
  bool done_ = false;         // the top-level value is complete
};

}  // namespace tharsis
