// lib/protocol/utf8.h: what is and is not UTF-8, and the replacement of ill-formed
// sequences by U+FFFD (one per maximal subpart, as the Unicode standard recommends).
#include "lib/protocol/utf8.h"

#include <gtest/gtest.h>

#include <random>

#include "lib/protocol/client_side.h"
#include "lib/protocol/scheduler_request.h"
#include "lib/protocol/xml_text.h"

namespace tharsis {
namespace {

const std::string R = "\xEF\xBF\xBD";  // U+FFFD

TEST(Utf8, ValidTextIsKeptAsItIs) {
  for (const std::string& text : {std::string(""), std::string("plain ascii\n\t"), std::string("caf\xC3\xA9"),
                                  std::string("\xE2\x82\xAC 5"), std::string("emoji \xF0\x9F\x98\x80"),
                                  std::string("\xF4\x8F\xBF\xBF"), std::string("nul \0 inside", 12)}) {
    EXPECT_TRUE(is_valid_utf8(text)) << text;
    EXPECT_EQ(valid_utf8_or_replaced(text), text);
  }
}

TEST(Utf8, TheIssuesBytesBecomeReplacementCharacters) {
  // FF, FE: never in UTF-8; C3 then '(': a truncated sequence; ED A0 80: a surrogate.
  std::string bad = "\xff\xfe\xc3\x28\xed\xa0\x80";
  EXPECT_FALSE(is_valid_utf8(bad));
  EXPECT_EQ(valid_utf8_or_replaced(bad), R + R + R + "(" + R + R + R);
}

TEST(Utf8, EachKindOfIllFormedSequenceIsReplaced) {
  struct Case {
    std::string in, out;
  };
  for (const auto& c : std::vector<Case>{
           {"\xC0\x80", R + R},                  // overlong NUL
           {"\xC1\xBF", R + R},                  // overlong
           {"\xE0\x80\xAF", R + R + R},          // overlong '/'
           {"\xF0\x80\x80\xAF", R + R + R + R},  // overlong, four bytes
           {"\xED\xBF\xBF", R + R + R},          // low surrogate
           {"\xF4\x90\x80\x80", R + R + R + R},  // above U+10FFFF
           {"\xF5\x80", R + R},                  // lead byte above F4
           {"\x80x", R + "x"},                   // stray continuation byte
           {"a\xE2\x82", "a" + R},               // truncated at the end: one subpart
           {"\xE2\x82"
            "b",
            R + "b"},            // truncated inside
           {"\xF0\x9F\x98", R},  // a truncated emoji
           {"\xF0\x9F\x98\x80\xFF", "\xF0\x9F\x98\x80" + R},
       }) {
    EXPECT_FALSE(is_valid_utf8(c.in));
    EXPECT_EQ(valid_utf8_or_replaced(c.in), c.out);
  }
}

TEST(Utf8, AnyBytesComeOutValidAndValidTextComesOutUnchanged) {
  std::mt19937 random(13);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(random() % 40, '\0');
    for (auto& b : bytes) b = static_cast<char>(random() % 256);
    std::string fixed = valid_utf8_or_replaced(bytes);
    ASSERT_TRUE(is_valid_utf8(fixed));
    ASSERT_EQ(valid_utf8_or_replaced(fixed), fixed);
    ASSERT_LE(fixed.size(), 3 * bytes.size());
  }
}

TEST(Utf8, NulBytesAreReplaced) {
  EXPECT_EQ(nul_replaced(std::string("a\0b\0", 4)), "a" + R + "b" + R);
  EXPECT_EQ(nul_replaced("none"), "none");
}

TEST(Utf8, PrefixesNeverCutACharacter) {
  std::string text = "a\xC3\xA9\xF0\x9F\x98\x80z";  // a é 😀 z: 1 + 2 + 4 + 1 bytes
  EXPECT_EQ(utf8_prefix_bytes(text, 100), text);
  EXPECT_EQ(utf8_prefix_bytes(text, 2), "a");
  EXPECT_EQ(utf8_prefix_bytes(text, 3), "a\xC3\xA9");
  EXPECT_EQ(utf8_prefix_bytes(text, 6), "a\xC3\xA9");
  EXPECT_EQ(utf8_prefix_bytes(text, 7), "a\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(utf8_prefix_chars(text, 0), "");
  EXPECT_EQ(utf8_prefix_chars(text, 2), "a\xC3\xA9");
  EXPECT_EQ(utf8_prefix_chars(text, 3), "a\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(utf8_prefix_chars(text, 4), text);
}

TEST(Utf8, MessagesQuoteValidTextCutAtACharacterBoundary) {
  // 39 ASCII bytes then a two-byte character across the 40-byte cut: dropped whole.
  EXPECT_EQ(quote_for_message(std::string(39, 'a') + "\xC3\xA9" + "zz"), "'" + std::string(39, 'a') + "...'");
  EXPECT_EQ(quote_for_message("x\xff\x01"), "'x\xEF\xBF\xBD?'");
  EXPECT_EQ(quote_for_message("short"), "'short'");
}

// Fuzz finding: a 255-byte name of invalid bytes passed the 255-byte limit, then came out
// as 255 U+FFFD (765 bytes), so the limit no longer held and the request's rendering did
// not parse. What is kept is cut again, at a character boundary.
TEST(Utf8, ReplacedTextStaysWithinItsFieldsLimit) {
  SchedulerRequest request;
  request.authenticator = "key";
  request.platform_name = std::string(255, '\xff');
  request.host.domain_name = std::string(250, 'a') + "\xc3\xa9\xff\xff";
  ProtocolLimits limits;
  auto parsed = parse_scheduler_request(render_scheduler_request(request), limits);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_LE(parsed->platform_name.size(), limits.max_name_bytes);
  EXPECT_EQ(valid_utf8_or_replaced(parsed->platform_name), parsed->platform_name);
  EXPECT_LE(parsed->host.domain_name.size(), limits.max_name_bytes);
  EXPECT_EQ(parsed->host.domain_name.substr(0, 252), std::string(250, 'a') + "\xc3\xa9");
  auto again = parse_scheduler_request(render_scheduler_request(*parsed), limits);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->platform_name, parsed->platform_name);
}

// Fuzz finding 11 (fuzz/regressions/scheduler_reply/name-cut-after-blanks): blanks
// inside a name that the cut after replacement left at its end came back trimmed from
// the rendered text, so the name changed on each round.
TEST(Utf8, ANameCutAfterReplacementEndsWithoutBlanks) {
  SchedulerRequest request;
  request.authenticator = "key";
  request.platform_name =
      "exa" + std::string(80, '\t') + std::string(51, '\xff') + std::string(40, '\t') + "mple";
  ProtocolLimits limits;
  auto parsed = parse_scheduler_request(render_scheduler_request(request), limits);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  std::string replaced;  // 51 U+FFFD: the name is now 276 bytes, cut to 255 inside the second blanks
  for (int i = 0; i < 51; ++i) replaced += "\xef\xbf\xbd";
  EXPECT_EQ(parsed->platform_name, "exa" + std::string(80, '\t') + replaced);
  auto again = parse_scheduler_request(render_scheduler_request(*parsed), limits);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->platform_name, parsed->platform_name);
}

}  // namespace
}  // namespace tharsis
