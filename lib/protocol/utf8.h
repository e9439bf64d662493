// UTF-8 hygiene for text a client sends us. MariaDB refuses a string that is not valid in
// the column's character set (error 1366, rolling back the whole RPC), and the client sends
// the same text again next time: one bad byte in a host's stderr or domain name would lock
// that host out for good. So every text field of a request is made valid once, where the
// request is parsed, by replacing what is not UTF-8 with U+FFFD.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tharsis {

// Whether `text` is well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF, no truncated sequence. NUL is valid UTF-8.
bool is_valid_utf8(std::string_view text);

// `text` unchanged when it is valid UTF-8; otherwise a copy in which each maximal
// ill-formed subpart (Unicode's "substitution of maximal subparts": a bad lead byte, a
// stray continuation byte, or the longest valid prefix of a truncated sequence) becomes
// one U+FFFD. Four-byte characters (U+10000 and up, emoji) are kept: the tables are
// utf8mb4. The result can be up to three times as long as `text`.
std::string valid_utf8_or_replaced(std::string_view text);

// `text` with each NUL byte replaced by U+FFFD (an XML parser stops at NUL; a stored
// string should not carry one either).
std::string nul_replaced(std::string_view text);

// The longest prefix of valid UTF-8 `text` of at most `max_bytes` bytes that does not cut
// a character in two.
std::string_view utf8_prefix_bytes(std::string_view text, size_t max_bytes);
// The longest prefix of valid UTF-8 `text` of at most `max_chars` characters (what a
// VARCHAR(n) column holds).
std::string_view utf8_prefix_chars(std::string_view text, size_t max_chars);

}  // namespace tharsis
