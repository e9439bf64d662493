// HTML escaping for the status pages: every piece of text or attribute value a page prints
// goes through these, so a workunit name like "<script>" or a host name with quotes shows
// as text and never becomes markup.
#pragma once

#include <string>
#include <string_view>

namespace tharsis {

// Escapes & < > " ' as entities, and replaces control characters other than tab, newline
// and carriage return (not allowed in HTML text) with U+FFFD. Safe both as element text
// and inside a double- or single-quoted attribute value.
std::string html_escape(std::string_view text);

// The same escaping, named for attribute values so call sites say what they print.
inline std::string html_attr(std::string_view value) { return html_escape(value); }

}  // namespace tharsis
