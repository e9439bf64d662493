// HTML escaping (see html_escape.h).
#include "lib/web/html_escape.h"

#include "lib/protocol/xml_text.h"

namespace tharsis {

std::string html_escape(std::string_view text) {
  // &#39;: HTML 4 has no &apos;. U+FFFD: control characters are not allowed in HTML text.
  return escape_markup(text, {.apostrophe = "&#39;", .control = "\xEF\xBF\xBD", .del_is_control = true});
}

}  // namespace tharsis
