// xml_escape (lib/protocol/xml_text.h), the one escape for every XML we write: the wire
// protocol, SVG plots, archives.
#include "lib/protocol/xml_text.h"

#include <gtest/gtest.h>

namespace tharsis {
namespace {

TEST(XmlText, EscapeWritesTheFiveNamedEntities) {
  EXPECT_EQ(xml_escape("a<b & \"c\" > 'd'"), "a&lt;b &amp; &quot;c&quot; &gt; &apos;d&apos;");
}

TEST(XmlText, EscapeDropsControlCharactersXmlCannotHold) {
  EXPECT_EQ(xml_escape(std::string("a\x01"
                                   "b\tc\nd\re",
                                   9)),
            "ab\tc\nd\re");
}

}  // namespace
}  // namespace tharsis
