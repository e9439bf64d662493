// HTML escaping (see html_escape.h).
#include "lib/web/html_escape.h"

namespace tharsis {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += c;
        break;
      default: {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
          out += "\xEF\xBF\xBD";  // U+FFFD: control characters are not allowed in HTML text
        } else {
          out += c;
        }
      }
    }
  }
  return out;
}

}  // namespace tharsis
