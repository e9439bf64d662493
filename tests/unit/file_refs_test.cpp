// File descriptions read from xml_doc fields, and output template expansion.
#include "lib/work/file_refs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tharsis {
namespace {

TEST(FileRefs, ListsFileInfoNamesAndNoDelete) {
  auto files = file_infos_in(
      "<file_info><name>a.in</name><md5_cksum>x</md5_cksum></file_info>"
      "<file_info><name>shared.in</name><no_delete/></file_info>"
      "<workunit><file_ref><file_name>a.in</file_name></file_ref></workunit>");
  ASSERT_TRUE(files.ok()) << files.error();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].name, "a.in");
  EXPECT_FALSE((*files)[0].no_delete);
  EXPECT_TRUE((*files)[1].no_delete);
}

TEST(FileRefs, ListsNestedFileInfosInDocumentOrder) {
  // Every <file_info> element at any depth, as the XPath //file_info selects them.
  auto files = file_infos_in(
      "<a><file_info><name>1</name><file_info><name>2</name></file_info></file_info></a>"
      "<file_info><name>3</name></file_info><b><c><file_info><name>4</name></file_info></c></b>"
      "<FILE_INFO><name>not</name></FILE_INFO><file_info_x><name>not</name></file_info_x>");
  ASSERT_TRUE(files.ok()) << files.error();
  std::vector<std::string> names;
  for (const auto& f : *files) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"1", "2", "3", "4"}));
  auto none = file_infos_in("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(FileRefs, MalformedXmlIsAnError) {
  auto files = file_infos_in("<file_info><name>a</file_info>");
  ASSERT_FALSE(files.ok());
  EXPECT_NE(files.error().find("offset"), std::string::npos);
}

TEST(FileRefs, ExpandsOutputTemplate) {
  std::string text = expand_output_template(
      "<file_info><name><OUTFILE_0/></name><url><UPLOAD_URL/></url></file_info>"
      "<result><file_ref><file_name><OUTFILE_0/></file_name><open_name>out</open_name></file_ref></result>",
      "wu7_1", "http://127.0.0.1/p_cgi/file_upload_handler");
  EXPECT_EQ(text,
            "<file_info><name>wu7_1_0</name><url>http://127.0.0.1/p_cgi/file_upload_handler</url></file_info>"
            "<result><file_ref><file_name>wu7_1_0</file_name><open_name>out</open_name></file_ref></result>");
}

TEST(FileRefs, ExpandsOnlyOutfileNumbersBelow64InTheirPlainForm) {
  EXPECT_EQ(
      expand_output_template("<OUTFILE_1/><OUTFILE_63/>|<OUTFILE_64/><OUTFILE_05/><OUTFILE_123/><OUTFILE_/>"
                             "<OUTFILE_7><UPLOAD_URL/><UPLOAD_URL>",
                             "r", "u"),
      "r_1r_63|<OUTFILE_64/><OUTFILE_05/><OUTFILE_123/><OUTFILE_/><OUTFILE_7>u<UPLOAD_URL>");
  EXPECT_EQ(expand_output_template("", "r", "u"), "");
  EXPECT_EQ(expand_output_template("no tags <", "r", "u"), "no tags <");
  EXPECT_EQ(expand_output_template("<OUTFILE_2", "r", "u"), "<OUTFILE_2");
}

}  // namespace
}  // namespace tharsis
