// read_children (lib/protocol/xml_reader.h), the child dispatcher of the protocol parsers.
#include "lib/protocol/xml_reader.h"

#include <gtest/gtest.h>

#include <vector>

namespace tharsis {
namespace {

TEST(XmlReader, ReadChildrenDispatchesByNameInOrderAndSkipsTheRest) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string("<r>text<a>1</a><unknown/><b>2</b><a>3</a></r>"));
  std::vector<std::string> seen;
  auto note = [&seen](pugi::xml_node node, const std::string& path) {
    seen.push_back(path + "=" + node.text().get());
    return Status::success();
  };
  ASSERT_TRUE(read_children(doc.child("r"), "r", {{"a", note}, {"b", note}}).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"r/a=1", "r/b=2", "r/a=3"}));
}

TEST(XmlReader, ReadChildrenStopsAtTheFirstFailure) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string("<r><a/><b/><a/></r>"));
  int calls = 0;
  Status status = read_children(doc.child("r"), "r",
                                {{"a",
                                  [&calls](pugi::xml_node, const std::string&) {
                                    ++calls;
                                    return Status::success();
                                  }},
                                 {"b", [](pugi::xml_node, const std::string& path) -> Status {
                                    return make_error(path + ": refused");
                                  }}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error(), "r/b: refused");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace tharsis
