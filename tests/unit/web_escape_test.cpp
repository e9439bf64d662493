// HTML escaping of the status pages (lib/web/html_escape.h).
#include <gtest/gtest.h>

#include "lib/web/html_escape.h"

namespace tharsis {
namespace {

TEST(WebEscape, HtmlEscape_EscapesAllFiveSpecialCharacters) {
  EXPECT_EQ(html_escape("<script>alert(\"x\" & 'y')</script>"),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
}

TEST(WebEscape, HtmlEscape_LeavesPlainTextAndUtf8Alone) {
  EXPECT_EQ(html_escape("host-1.example \xCE\xB1\xCE\xB2 42"), "host-1.example \xCE\xB1\xCE\xB2 42");
}

TEST(WebEscape, HtmlEscape_ReplacesControlCharactersButKeepsWhitespace) {
  EXPECT_EQ(html_escape(std::string("a\x01"
                                    "b\tc\nd\x7f",
                                    8)),
            "a\xEF\xBF\xBD"
            "b\tc\nd\xEF\xBF\xBD");
}

TEST(WebEscape, HtmlEscape_EscapesAmpersandOfExistingEntities) {
  // Text is text: an "&amp;" typed by a volunteer shows literally, not as "&".
  EXPECT_EQ(html_escape("&amp;"), "&amp;amp;");
}

}  // namespace
}  // namespace tharsis
